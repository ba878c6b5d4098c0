// SPDX-License-Identifier: GPL-2.0
/*
 * User Events lifetime checks: DIAG_IOCSUNREG argument errors, automatic
 * deletion once the last tracer detaches, enablers copied by fork() and
 * dropped by exec().
 */

#include <sys/wait.h>

#include "../kselftest_harness.h"
#include "user_events_selftests.h"
#include "user_events_helpers.h"

#define EXEC_CHILD_ARG "--exec-child"

FIXTURE(life) {
	int data_fd;
	bool umount;
};

FIXTURE_SETUP(life) {
	self->data_fd = -1;
	USER_EVENT_FIXTURE_SETUP(return, self->umount);

	self->data_fd = open(UE_DATA_FILE, O_RDWR);
	ASSERT_NE(-1, self->data_fd);
}

FIXTURE_TEARDOWN(life) {
	if (self->data_fd != -1)
		close(self->data_fd);

	USER_EVENT_FIXTURE_TEARDOWN(self->umount);
}

TEST_F(life, unregister_argument_errors) {
	struct user_unreg unreg = {0};
	__u32 word = 0, other = 0;

	ASSERT_EQ(0, ue_reg(self->data_fd, "__ue_life_unreg u32 a", &word,
			    sizeof(word), 2, 0, NULL));

	unreg.size = sizeof(unreg);
	unreg.disable_addr = (__u64)(unsigned long)&word;
	unreg.disable_bit = 2;

	/* Both reserved fields must be zero */
	unreg.__reserved = 1;
	ASSERT_EQ(-1, ioctl(self->data_fd, DIAG_IOCSUNREG, &unreg));
	ASSERT_EQ(EINVAL, errno);
	unreg.__reserved = 0;

	unreg.__reserved2 = 1;
	ASSERT_EQ(-1, ioctl(self->data_fd, DIAG_IOCSUNREG, &unreg));
	ASSERT_EQ(EINVAL, errno);
	unreg.__reserved2 = 0;

	/* A struct too small for disable_addr */
	unreg.size = sizeof(unreg) - 1;
	ASSERT_EQ(-1, ioctl(self->data_fd, DIAG_IOCSUNREG, &unreg));
	ASSERT_EQ(EINVAL, errno);
	unreg.size = sizeof(unreg);

	/* An address or bit nothing was registered at */
	ASSERT_EQ(-1, ue_unreg(self->data_fd, &other, 2));
	ASSERT_EQ(ENOENT, errno);
	ASSERT_EQ(-1, ue_unreg(self->data_fd, &word, 3));
	ASSERT_EQ(ENOENT, errno);

	ASSERT_EQ(0, ioctl(self->data_fd, DIAG_IOCSUNREG, &unreg));
	ASSERT_EQ(-1, ioctl(self->data_fd, DIAG_IOCSUNREG, &unreg));
	ASSERT_EQ(ENOENT, errno);
}

TEST_F(life, deleted_after_the_last_tracer_detaches) {
	const char *name = "__ue_life_tracer";
	__u32 word = 0;

	ASSERT_EQ(0, ue_reg(self->data_fd, "__ue_life_tracer u32 a", &word,
			    sizeof(word), 0, 0, NULL));
	ASSERT_EQ(0, ue_ftrace_enable(name, true));

	/* Without any registration left, ftrace still holds the event */
	ASSERT_EQ(0, ue_unreg(self->data_fd, &word, 0));
	close(self->data_fd);
	self->data_fd = -1;
	usleep(100 * 1000);
	ASSERT_TRUE(ue_event_exists(name));

	/* Detaching the last user deletes it (asynchronously) */
	ASSERT_EQ(0, ue_ftrace_enable(name, false));
	ASSERT_TRUE(ue_wait_gone(name));
}

TEST_F(life, fork_copies_the_enabler) {
	const char *name = "__ue_life_fork";
	__u32 word = 0;
	int sync[2], status;
	char c = 0;
	pid_t pid;

	ASSERT_EQ(0, ue_reg(self->data_fd, "__ue_life_fork u32 a", &word,
			    sizeof(word), 9, 0, NULL));
	ASSERT_EQ(0, pipe(sync));

	pid = fork();
	ASSERT_NE(-1, pid);

	if (pid == 0) {
		close(sync[0]);

		/* The child's copy of the word follows the event */
		if (!ue_wait_bits(&word, ~0U, 1U << 9))
			_exit(1);

		/* Its unregister clears its own copy only */
		if (ue_unreg(self->data_fd, &word, 9) || word)
			_exit(2);

		if (write(sync[1], &c, 1) != 1)
			_exit(3);

		_exit(0);
	}

	close(sync[1]);
	ASSERT_EQ(0, ue_ftrace_enable(name, true));
	ASSERT_TRUE(ue_wait_bits(&word, ~0U, 1U << 9));

	/* Zero bytes: the child gave up, its exit status says where */
	if (read(sync[0], &c, 1) != 1)
		TH_LOG("the child did not see its copy of the bit");
	close(sync[0]);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));

	/* The parent's enabler is still there */
	ASSERT_EQ(1U << 9, __atomic_load_n(&word, __ATOMIC_RELAXED));
	ASSERT_EQ(0, ue_ftrace_enable(name, false));
	ASSERT_TRUE(ue_wait_bits(&word, ~0U, 0));

	ASSERT_EQ(0, ue_unreg(self->data_fd, &word, 9));
}

TEST_F(life, exec_drops_the_enablers) {
	const char *name = "__ue_life_exec";
	char fd_arg[16];
	__u32 word = 0;
	int status, fd;
	pid_t pid;

	pid = fork();
	ASSERT_NE(-1, pid);

	if (pid == 0) {
		/*
		 * The event's references are this enabler and the write
		 * index of the file. exec() keeps the file but must drop
		 * the enabler, so that closing the file in the new program
		 * releases the event. The file must be this process's
		 * alone, not the one it shares with its parent.
		 */
		fd = open(UE_DATA_FILE, O_RDWR);
		if (fd == -1)
			_exit(9);

		if (ue_reg(fd, "__ue_life_exec u32 a", &word, sizeof(word),
			   0, 0, NULL))
			_exit(10);

		snprintf(fd_arg, sizeof(fd_arg), "%d", fd);
		execl("/proc/self/exe", "lifetime_test", EXEC_CHILD_ARG,
		      fd_arg, name, (char *)NULL);
		_exit(11);
	}

	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
	ASSERT_FALSE(ue_event_exists(name));
}

/* The program exec_drops_the_enablers runs after exec() */
static int exec_child(const char *fd_arg, const char *name)
{
	int fd = atoi(fd_arg);

	/* The file survives exec() */
	if (fcntl(fd, F_GETFD) == -1)
		return 20;

	if (!ue_event_exists(name))
		return 21;

	close(fd);

	/* Without an enabler left, the event goes with the file */
	return ue_wait_gone(name) ? 0 : 22;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], EXEC_CHILD_ARG))
		return exec_child(argv[2], argv[3]);

	return test_harness_run(argc, argv);
}
