// SPDX-License-Identifier: GPL-2.0
/*
 * User Events enable bit checks: ftrace and perf set and clear exactly the
 * registered bit, unregistering clears that bit and no other, and a 32-bit
 * enable word gets the right bit whether it starts a long or not (the
 * alignment fix up that 64-bit and big-endian kernels need).
 */

#include "../kselftest_harness.h"
#include "user_events_selftests.h"
#include "user_events_helpers.h"

FIXTURE(enable) {
	int data_fd;
	bool umount;
};

FIXTURE_SETUP(enable) {
	self->data_fd = -1;
	USER_EVENT_FIXTURE_SETUP(return, self->umount);

	self->data_fd = open(UE_DATA_FILE, O_RDWR);
	ASSERT_NE(-1, self->data_fd);
}

FIXTURE_TEARDOWN(enable) {
	if (self->data_fd != -1)
		close(self->data_fd);

	USER_EVENT_FIXTURE_TEARDOWN(self->umount);
}

TEST_F(enable, ftrace_sets_and_clears_the_bit) {
	const char *name = "__ue_enable_ftrace";
	__u32 word = 0;

	ASSERT_EQ(0, ue_reg(self->data_fd, "__ue_enable_ftrace u32 a", &word,
			    sizeof(word), 7, 0, NULL));
	ASSERT_EQ(0, word);

	ASSERT_EQ(0, ue_ftrace_enable(name, true));
	ASSERT_TRUE(ue_wait_bits(&word, ~0U, 1U << 7));

	ASSERT_EQ(0, ue_ftrace_enable(name, false));
	ASSERT_TRUE(ue_wait_bits(&word, ~0U, 0));

	ASSERT_EQ(0, ue_unreg(self->data_fd, &word, 7));
}

TEST_F(enable, perf_sets_and_clears_the_bit) {
	__u32 word = 0;
	int perf_fd;

	ASSERT_EQ(0, ue_reg(self->data_fd, "__ue_enable_perf u32 a", &word,
			    sizeof(word), 3, 0, NULL));

	perf_fd = ue_perf_open("__ue_enable_perf");
	if (perf_fd == -1 && (errno == EACCES || errno == ENOENT ||
			      errno == ENODEV))
		SKIP(return, "perf_event_open() not available: %s",
		     strerror(errno));
	ASSERT_NE(-1, perf_fd);

	ASSERT_TRUE(ue_wait_bits(&word, ~0U, 1U << 3));

	close(perf_fd);
	ASSERT_TRUE(ue_wait_bits(&word, ~0U, 0));

	ASSERT_EQ(0, ue_unreg(self->data_fd, &word, 3));
}

TEST_F(enable, unregister_clears_only_its_bit) {
	const char *name = "__ue_enable_unreg";
	__u32 word = 1U << 4;

	/* Bit 4 belongs to the program, bit 5 to the event */
	ASSERT_EQ(0, ue_reg(self->data_fd, "__ue_enable_unreg u32 a", &word,
			    sizeof(word), 5, 0, NULL));
	ASSERT_EQ(0, ue_ftrace_enable(name, true));
	ASSERT_TRUE(ue_wait_bits(&word, ~0U, (1U << 4) | (1U << 5)));

	/* Unregistering an enabled event clears its bit right away */
	ASSERT_EQ(0, ue_unreg(self->data_fd, &word, 5));
	ASSERT_EQ(1U << 4, __atomic_load_n(&word, __ATOMIC_RELAXED));

	/* The event stays enabled, but the word is no longer updated */
	ASSERT_EQ(0, ue_ftrace_enable(name, false));
	ASSERT_EQ(0, ue_ftrace_enable(name, true));
	usleep(100 * 1000);
	ASSERT_EQ(1U << 4, __atomic_load_n(&word, __ATOMIC_RELAXED));

	ASSERT_EQ(0, ue_ftrace_enable(name, false));
}

TEST_F(enable, u32_word_in_either_half_of_a_long) {
	const char *name = "__ue_enable_half";
	__u64 longs[2] = {0};
	__u32 *words = (__u32 *)longs;

	/*
	 * words[0] starts a long, words[1] is its second half: the kernel
	 * sets bits through long sized operations, so it must adjust the
	 * address and bit of each for the byte order of the machine.
	 */
	ASSERT_EQ(0, ue_reg(self->data_fd, "__ue_enable_half u32 a",
			    &words[0], sizeof(__u32), 1, 0, NULL));
	ASSERT_EQ(0, ue_reg(self->data_fd, "__ue_enable_half u32 a",
			    &words[1], sizeof(__u32), 30, 0, NULL));

	ASSERT_EQ(0, ue_ftrace_enable(name, true));
	ASSERT_TRUE(ue_wait_bits(&words[0], ~0U, 1U << 1));
	ASSERT_TRUE(ue_wait_bits(&words[1], ~0U, 1U << 30));
	ASSERT_EQ(0, words[2]);
	ASSERT_EQ(0, words[3]);

	ASSERT_EQ(0, ue_ftrace_enable(name, false));
	ASSERT_TRUE(ue_wait_bits(&words[0], ~0U, 0));
	ASSERT_TRUE(ue_wait_bits(&words[1], ~0U, 0));

	ASSERT_EQ(0, ue_unreg(self->data_fd, &words[0], 1));
	ASSERT_EQ(0, ue_unreg(self->data_fd, &words[1], 30));
}

TEST_HARNESS_MAIN
