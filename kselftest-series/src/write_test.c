// SPDX-License-Identifier: GPL-2.0
/*
 * User Events write checks: the errors of write() and writev() on
 * user_events_data (no tracer, bad index, short payload, bad buffer or
 * offset), the packed layout of the recorded fields and the
 * user_events_max limit.
 */

#include <sys/mman.h>
#include <sys/uio.h>

#include "../kselftest_harness.h"
#include "user_events_selftests.h"
#include "user_events_helpers.h"

#define MAX_FILE "/proc/sys/kernel/user_events_max"

FIXTURE(write) {
	int data_fd;
	bool umount;
};

FIXTURE_SETUP(write) {
	self->data_fd = -1;
	USER_EVENT_FIXTURE_SETUP(return, self->umount);

	self->data_fd = open(UE_DATA_FILE, O_RDWR);
	ASSERT_NE(-1, self->data_fd);
}

FIXTURE_TEARDOWN(write) {
	if (self->data_fd != -1)
		close(self->data_fd);

	USER_EVENT_FIXTURE_TEARDOWN(self->umount);
}

static ssize_t write_event(int fd, int idx, const void *data, size_t len)
{
	struct iovec io[2];

	io[0].iov_base = &idx;
	io[0].iov_len = sizeof(idx);
	io[1].iov_base = (void *)data;
	io[1].iov_len = len;

	return writev(fd, io, 2);
}

TEST_F(write, without_tracer_is_ebadf) {
	__u32 word = 0, value = 1;
	__u32 idx;

	ASSERT_EQ(0, ue_reg(self->data_fd, "__ue_write_ebadf u32 a", &word,
			    sizeof(word), 0, 0, &idx));
	ASSERT_EQ(0, word);

	ASSERT_EQ(-1, write_event(self->data_fd, idx, &value, sizeof(value)));
	ASSERT_EQ(EBADF, errno);

	/* With a tracer the same write is accepted */
	ASSERT_EQ(0, ue_ftrace_enable("__ue_write_ebadf", true));
	ASSERT_EQ(sizeof(idx) + sizeof(value),
		  write_event(self->data_fd, idx, &value, sizeof(value)));
	ASSERT_EQ(0, ue_ftrace_enable("__ue_write_ebadf", false));

	ASSERT_EQ(0, ue_unreg(self->data_fd, &word, 0));
}

TEST_F(write, bad_index) {
	__u32 word = 0, value = 1;
	__u32 idx;

	ASSERT_EQ(0, ue_reg(self->data_fd, "__ue_write_index u32 a", &word,
			    sizeof(word), 0, 0, &idx));

	ASSERT_EQ(-1, write_event(self->data_fd, -1, &value, sizeof(value)));
	ASSERT_EQ(EINVAL, errno);

	ASSERT_EQ(-1, write_event(self->data_fd, idx + 1000, &value,
				  sizeof(value)));
	ASSERT_EQ(ENOENT, errno);

	ASSERT_EQ(0, ue_unreg(self->data_fd, &word, 0));
}

TEST_F(write, short_payload_is_einval) {
	__u32 word = 0, values[2] = {1, 2};
	__u32 idx;

	ASSERT_EQ(0, ue_reg(self->data_fd, "__ue_write_short u32 a; u32 b",
			    &word, sizeof(word), 0, 0, &idx));
	ASSERT_EQ(0, ue_ftrace_enable("__ue_write_short", true));

	ASSERT_EQ(-1, write_event(self->data_fd, idx, values,
				  sizeof(values) - 1));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(-1, write_event(self->data_fd, idx, values, 0));
	ASSERT_EQ(EINVAL, errno);

	ASSERT_EQ(sizeof(idx) + sizeof(values),
		  write_event(self->data_fd, idx, values, sizeof(values)));

	ASSERT_EQ(0, ue_ftrace_enable("__ue_write_short", false));
	ASSERT_EQ(0, ue_unreg(self->data_fd, &word, 0));
}

TEST_F(write, bad_buffer_and_offset_are_efault) {
	char buf[sizeof(int) + sizeof(__u32)] = {0};
	__u32 word = 0;
	__u32 idx;
	void *none;

	ASSERT_EQ(0, ue_reg(self->data_fd, "__ue_write_efault u32 a", &word,
			    sizeof(word), 0, 0, &idx));
	ASSERT_EQ(0, ue_ftrace_enable("__ue_write_efault", true));
	memcpy(buf, &idx, sizeof(idx));

	/* The index cannot be read */
	none = mmap(NULL, getpagesize(), PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
		    -1, 0);
	ASSERT_NE(MAP_FAILED, none);
	ASSERT_EQ(-1, write(self->data_fd, none, sizeof(buf)));
	ASSERT_EQ(EFAULT, errno);
	munmap(none, getpagesize());

	/* Only offset 0 is accepted */
	ASSERT_EQ(-1, pwrite(self->data_fd, buf, sizeof(buf), 1));
	ASSERT_EQ(EFAULT, errno);
	ASSERT_EQ(sizeof(buf), pwrite(self->data_fd, buf, sizeof(buf), 0));

	ASSERT_EQ(0, ue_ftrace_enable("__ue_write_efault", false));
	ASSERT_EQ(0, ue_unreg(self->data_fd, &word, 0));
}

TEST_F(write, fields_are_packed) {
	const char *name = "__ue_write_packed";
	__u32 b_value = 0x12345678;
	char data[5] = {1};
	__u32 word = 0;
	__u32 idx;
	int a, b;

	/* u8 a = 1, then u32 b, with no padding between them */
	memcpy(data + 1, &b_value, sizeof(b_value));

	ASSERT_EQ(0, ue_reg(self->data_fd, "__ue_write_packed u8 a; u32 b",
			    &word, sizeof(word), 0, 0, &idx));

	/* The fields follow one another, without padding */
	a = ue_field_offset(name, "u8 a;");
	b = ue_field_offset(name, "u32 b;");
	ASSERT_LT(0, a);
	ASSERT_EQ(a + 1, b);

	/* And the recorded values read back through that layout */
	ASSERT_EQ(0, ue_write_str(UE_TRACEFS "/trace", "", O_TRUNC));
	ASSERT_EQ(0, ue_ftrace_enable(name, true));
	ASSERT_EQ(sizeof(idx) + sizeof(data),
		  write_event(self->data_fd, idx, data, sizeof(data)));
	ASSERT_EQ(0, ue_ftrace_enable(name, false));

	ASSERT_TRUE(ue_trace_has(UE_TRACEFS, name, "305419896"));

	ASSERT_EQ(0, ue_unreg(self->data_fd, &word, 0));
}

FIXTURE(limit) {
	int data_fd;
	bool umount;
	char max[32];
};

FIXTURE_SETUP(limit) {
	self->data_fd = -1;
	self->max[0] = '\0';
	USER_EVENT_FIXTURE_SETUP(return, self->umount);

	if (ue_read_file(MAX_FILE, self->max, sizeof(self->max)) <= 0)
		SKIP(return, "No %s", MAX_FILE);

	self->data_fd = open(UE_DATA_FILE, O_RDWR);
	ASSERT_NE(-1, self->data_fd);
}

FIXTURE_TEARDOWN(limit) {
	if (self->data_fd != -1)
		close(self->data_fd);

	if (self->max[0])
		ue_write_str(MAX_FILE, self->max, 0);

	USER_EVENT_FIXTURE_TEARDOWN(self->umount);
}

/* The Active line of user_events_status: the events of this group */
static int active_events(void)
{
	char buf[65536], *pos;

	if (ue_read_file(UE_STATUS_FILE, buf, sizeof(buf)) <= 0)
		return -1;

	pos = strstr(buf, "\nActive: ");
	if (!pos)
		return -1;

	return atoi(pos + strlen("\nActive: "));
}

/*
 * The Active count once the events of earlier tests are gone. Their deletion
 * is asynchronous, and an event counts against user_events_max until it is
 * removed from the list: one removed during the test would leave the count
 * one below the limit. Waits until no event of this series is listed (at
 * most UE_WAIT_MS: one may be kept on purpose), then until the count has not
 * moved for 100 ms.
 */
static int settled_events(void)
{
	char buf[65536];
	int i, last = -1, same = 0;

	for (i = 0; i < UE_WAIT_MS; ++i) {
		if (ue_read_file(UE_STATUS_FILE, buf, sizeof(buf)) > 0 &&
		    strncmp(buf, "__ue_", 5) && !strstr(buf, "\n__ue_"))
			break;
		usleep(1000);
	}

	for (i = 0; i < UE_WAIT_MS && same < 100; ++i) {
		int now = active_events();

		same = now == last ? same + 1 : 0;
		last = now;
		usleep(1000);
	}

	return last;
}

TEST_F(limit, user_events_max) {
	char cmd[64], max[32];
	__u32 words[16] = {0};
	int active, limit, i;

	active = settled_events();
	ASSERT_LE(0, active);

	/* Room for three more events */
	limit = active + 3;
	snprintf(max, sizeof(max), "%d", limit);
	ASSERT_EQ(0, ue_write_str(MAX_FILE, max, 0));

	for (i = 0; i < 16; ++i) {
		snprintf(cmd, sizeof(cmd), "__ue_write_max_%d u32 a", i);
		if (ue_reg(self->data_fd, cmd, &words[i], sizeof(__u32), 0, 0,
			   NULL) == -1)
			break;
	}

	ASSERT_GT(16, i);
	ASSERT_EQ(EMFILE, errno);

	/* The last registration failed at exactly user_events_max events */
	ASSERT_EQ(limit, active_events());
}

TEST_HARNESS_MAIN
