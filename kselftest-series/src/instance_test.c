// SPDX-License-Identifier: GPL-2.0
/*
 * User Events in tracefs instances: an event registered after an instance
 * was made is listed there, enabling it there sets its bit and records
 * into that buffer only, and removing the instance clears the bit.
 */

#include <sys/stat.h>

#include "../kselftest_harness.h"
#include "user_events_selftests.h"
#include "user_events_helpers.h"

#define INST_DIR UE_TRACEFS "/instances/__ue_inst_test"
#define INST_EVENTS INST_DIR "/events/user_events"

FIXTURE(inst) {
	int data_fd;
	bool umount;
	bool made;
};

FIXTURE_SETUP(inst) {
	self->data_fd = -1;
	self->made = false;
	USER_EVENT_FIXTURE_SETUP(return, self->umount);

	/* Left over by an earlier run that failed */
	rmdir(INST_DIR);

	if (mkdir(INST_DIR, 0750) == -1) {
		if (errno == ENOENT)
			SKIP(return, "No tracefs instances");
		ASSERT_EQ(0, errno);
	}
	self->made = true;

	self->data_fd = open(UE_DATA_FILE, O_RDWR);
	ASSERT_NE(-1, self->data_fd);
}

FIXTURE_TEARDOWN(inst) {
	if (self->data_fd != -1)
		close(self->data_fd);

	if (self->made)
		rmdir(INST_DIR);

	USER_EVENT_FIXTURE_TEARDOWN(self->umount);
}

static int inst_enable(const char *name, bool on)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s/enable", INST_EVENTS, name);

	return ue_write_str(path, on ? "1" : "0", 0);
}

TEST_F(inst, lists_a_new_event) {
	char path[256];
	struct stat st;
	__u32 word = 0;

	ASSERT_EQ(0, ue_reg(self->data_fd, "__ue_inst_list u32 a", &word,
			    sizeof(word), 0, 0, NULL));

	snprintf(path, sizeof(path), "%s/__ue_inst_list", INST_EVENTS);
	ASSERT_EQ(0, stat(path, &st));
	ASSERT_TRUE(S_ISDIR(st.st_mode));

	ASSERT_EQ(0, ue_unreg(self->data_fd, &word, 0));
}

TEST_F(inst, enable_there_records_there_only) {
	const char *name = "__ue_inst_rec";
	int idx_value[2];
	__u32 word = 0;
	__u32 idx;

	ASSERT_EQ(0, ue_reg(self->data_fd, "__ue_inst_rec u32 a", &word,
			    sizeof(word), 4, 0, &idx));
	ASSERT_EQ(0, ue_write_str(UE_TRACEFS "/trace", "", O_TRUNC));
	ASSERT_EQ(0, ue_write_str(INST_DIR "/trace", "", O_TRUNC));

	ASSERT_EQ(0, inst_enable(name, true));
	ASSERT_TRUE(ue_wait_bits(&word, ~0U, 1U << 4));

	idx_value[0] = idx;
	idx_value[1] = 271828;
	ASSERT_EQ(sizeof(idx_value),
		  write(self->data_fd, idx_value, sizeof(idx_value)));

	ASSERT_TRUE(ue_trace_has(INST_DIR, name, "271828"));
	ASSERT_FALSE(ue_trace_has(UE_TRACEFS, name, ""));

	ASSERT_EQ(0, inst_enable(name, false));
	ASSERT_TRUE(ue_wait_bits(&word, ~0U, 0));
	ASSERT_EQ(0, ue_unreg(self->data_fd, &word, 4));
}

TEST_F(inst, removing_it_clears_the_bit) {
	__u32 word = 0;

	ASSERT_EQ(0, ue_reg(self->data_fd, "__ue_inst_rm u32 a", &word,
			    sizeof(word), 6, 0, NULL));
	ASSERT_EQ(0, inst_enable("__ue_inst_rm", true));
	ASSERT_TRUE(ue_wait_bits(&word, ~0U, 1U << 6));

	/* The event is disabled along with the buffer it recorded into */
	ASSERT_EQ(0, rmdir(INST_DIR));
	self->made = false;
	ASSERT_TRUE(ue_wait_bits(&word, ~0U, 0));

	ASSERT_EQ(0, ue_unreg(self->data_fd, &word, 6));
}

TEST_HARNESS_MAIN
