// SPDX-License-Identifier: GPL-2.0
/*
 * User Events tracefs checks: user_events_status names the consumers of
 * an event, events made through dynamic_events persist, the modes of the
 * ABI files, and persistent registration needs CAP_PERFMON.
 */

#include <sys/wait.h>
#include <linux/capability.h>

#include "../kselftest_harness.h"
#include "user_events_selftests.h"
#include "user_events_helpers.h"

FIXTURE(tfs) {
	int data_fd;
	bool umount;
};

FIXTURE_SETUP(tfs) {
	self->data_fd = -1;
	USER_EVENT_FIXTURE_SETUP(return, self->umount);

	self->data_fd = open(UE_DATA_FILE, O_RDWR);
	ASSERT_NE(-1, self->data_fd);
}

FIXTURE_TEARDOWN(tfs) {
	if (self->data_fd != -1)
		close(self->data_fd);

	USER_EVENT_FIXTURE_TEARDOWN(self->umount);
}

/* Copies the line of user_events_status about the event into line */
static bool status_line(const char *name, char *line, size_t len)
{
	char buf[65536], *pos, *end;
	size_t name_len = strlen(name);

	if (ue_read_file(UE_STATUS_FILE, buf, sizeof(buf)) <= 0)
		return false;

	for (pos = buf; pos && *pos; pos = end ? end + 1 : NULL) {
		end = strchr(pos, '\n');
		if (end)
			*end = '\0';

		if (!strncmp(pos, name, name_len) &&
		    (pos[name_len] == ' ' || pos[name_len] == '\0')) {
			name_len = strlen(pos);
			if (name_len >= len)
				name_len = len - 1;
			memcpy(line, pos, name_len);
			line[name_len] = '\0';
			return true;
		}
	}

	return false;
}

TEST_F(tfs, status_names_the_consumers) {
	const char *name = "__ue_tfs_status";
	char line[256];
	__u32 word = 0;
	int perf_fd;

	ASSERT_EQ(0, ue_reg(self->data_fd, "__ue_tfs_status u32 a", &word,
			    sizeof(word), 0, 0, NULL));
	ASSERT_TRUE(status_line(name, line, sizeof(line)));
	ASSERT_EQ(NULL, strstr(line, "Used by")) TH_LOG("%s", line);

	ASSERT_EQ(0, ue_ftrace_enable(name, true));
	ASSERT_TRUE(status_line(name, line, sizeof(line)));
	ASSERT_NE(NULL, strstr(line, " Used by ftrace")) TH_LOG("%s", line);
	ASSERT_EQ(0, ue_ftrace_enable(name, false));

	perf_fd = ue_perf_open(name);
	if (perf_fd == -1 && (errno == EACCES || errno == ENOENT ||
			      errno == ENODEV))
		SKIP(return, "perf_event_open() not available: %s",
		     strerror(errno));
	ASSERT_NE(-1, perf_fd);

	ASSERT_TRUE(status_line(name, line, sizeof(line)));
	ASSERT_NE(NULL, strstr(line, " Used by perf")) TH_LOG("%s", line);
	close(perf_fd);

	ASSERT_EQ(0, ue_unreg(self->data_fd, &word, 0));
}

TEST_F(tfs, dynamic_events_persist) {
	const char *name = "__ue_tfs_dyn";
	int i;

	ASSERT_EQ(0, ue_write_str(UE_DYN_FILE, "u:__ue_tfs_dyn u32 a",
				  O_APPEND));

	/* Nothing references it, yet it must not go away */
	for (i = 0; i < 100; ++i) {
		ASSERT_TRUE(ue_event_exists(name));
		usleep(10 * 1000);
	}

	ASSERT_EQ(0, ue_delete(name));
	ASSERT_TRUE(ue_wait_gone(name));
}

TEST_F(tfs, abi_files_not_writable_by_others) {
	struct stat st;

	/* Writers are granted access by the administrator, not by default */
	ASSERT_EQ(0, stat(UE_DATA_FILE, &st));
	ASSERT_EQ(0, st.st_mode & 0027)
		TH_LOG("user_events_data mode %o", st.st_mode & 07777);

	ASSERT_EQ(0, stat(UE_STATUS_FILE, &st));
	ASSERT_EQ(0, st.st_mode & 0227)
		TH_LOG("user_events_status mode %o", st.st_mode & 07777);
}

/* Drops CAP_PERFMON and CAP_SYS_ADMIN from the calling process */
static int drop_perfmon(void)
{
	struct __user_cap_header_struct hdr = {0};
	struct __user_cap_data_struct data[2] = {0};
	int i;

	hdr.version = _LINUX_CAPABILITY_VERSION_3;

	if (syscall(__NR_capget, &hdr, data))
		return -1;

	for (i = 0; i < 2; ++i) {
		if (CAP_TO_INDEX(CAP_PERFMON) == i) {
			data[i].effective &= ~CAP_TO_MASK(CAP_PERFMON);
			data[i].permitted &= ~CAP_TO_MASK(CAP_PERFMON);
		}
		if (CAP_TO_INDEX(CAP_SYS_ADMIN) == i) {
			data[i].effective &= ~CAP_TO_MASK(CAP_SYS_ADMIN);
			data[i].permitted &= ~CAP_TO_MASK(CAP_SYS_ADMIN);
		}
	}

	return syscall(__NR_capset, &hdr, data);
}

TEST_F(tfs, persist_needs_perfmon) {
	__u32 word = 0;
	int status;
	pid_t pid;

	pid = fork();
	ASSERT_NE(-1, pid);

	if (pid == 0) {
		if (drop_perfmon())
			_exit(10);

		if (ue_reg(self->data_fd, "__ue_tfs_persist u32 a", &word,
			   sizeof(word), 0, USER_EVENT_REG_PERSIST, NULL) != -1)
			_exit(11);

		if (errno != EPERM)
			_exit(12);

		/* The same registration without the flag is allowed */
		if (ue_reg(self->data_fd, "__ue_tfs_persist u32 a", &word,
			   sizeof(word), 0, 0, NULL))
			_exit(13);

		_exit(0);
	}

	ASSERT_EQ(pid, waitpid(pid, &status, 0));

	/* Where the flag was wrongly granted, the event must not stay */
	ue_delete("__ue_tfs_persist");

	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
}

TEST_HARNESS_MAIN
