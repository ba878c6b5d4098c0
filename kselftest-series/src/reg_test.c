// SPDX-License-Identifier: GPL-2.0
/*
 * User Events registration ABI checks: the DIAG_IOCSREG argument rules
 * (struct size, flags, enable size, alignment and bit range), the naming of
 * multi-format tracepoints, how field lists are matched and the length
 * limit of the command.
 */

#include <dirent.h>

#include "../kselftest_harness.h"
#include "user_events_selftests.h"
#include "user_events_helpers.h"

/* The command is copied with a limit of 512 bytes, its NUL included */
#define CMD_MAX 512

FIXTURE(reg) {
	int data_fd;
	bool umount;
};

FIXTURE_SETUP(reg) {
	self->data_fd = -1;
	USER_EVENT_FIXTURE_SETUP(return, self->umount);

	self->data_fd = open(UE_DATA_FILE, O_RDWR);
	ASSERT_NE(-1, self->data_fd);
}

FIXTURE_TEARDOWN(reg) {
	if (self->data_fd != -1)
		close(self->data_fd);

	USER_EVENT_FIXTURE_TEARDOWN(self->umount);
}

TEST_F(reg, struct_size) {
	struct user_reg reg = {0};
	__u32 word = 0;

	reg.name_args = (__u64)(unsigned long)"__ue_reg_size u32 a";
	reg.enable_addr = (__u64)(unsigned long)&word;
	reg.enable_size = sizeof(word);

	/* One byte short of write_index is too small */
	reg.size = sizeof(reg) - 1;
	ASSERT_EQ(-1, ioctl(self->data_fd, DIAG_IOCSREG, &reg));
	ASSERT_EQ(EINVAL, errno);

	reg.size = sizeof(reg);
	ASSERT_EQ(0, ioctl(self->data_fd, DIAG_IOCSREG, &reg));
	ASSERT_EQ(0, ue_unreg(self->data_fd, &word, 0));
}

TEST_F(reg, unknown_flags) {
	__u32 word = 0;
	int bit;

	/* Every flag bit from USER_EVENT_REG_MAX upwards is refused */
	for (bit = __builtin_ctz(USER_EVENT_REG_MAX); bit < 16; ++bit) {
		ASSERT_EQ(-1, ue_reg(self->data_fd, "__ue_reg_flags u32 a", &word,
				     sizeof(word), 0, 1U << bit, NULL));
		ASSERT_EQ(EINVAL, errno);
	}

	ASSERT_EQ(0, ue_reg(self->data_fd, "__ue_reg_flags u32 a", &word,
			    sizeof(word), 0, 0, NULL));
	ASSERT_EQ(0, ue_unreg(self->data_fd, &word, 0));
}

static int count_multi(const char *name)
{
	struct dirent *ent;
	size_t len = strlen(name);
	int count = 0;
	DIR *dir;

	dir = opendir(UE_TRACEFS "/events/" USER_EVENTS_MULTI_SYSTEM);
	if (!dir)
		return 0;

	while ((ent = readdir(dir))) {
		/* Multi-format tracepoints are named <name>.<unique id> */
		if (!strncmp(ent->d_name, name, len) && ent->d_name[len] == '.')
			count++;
	}

	closedir(dir);

	return count;
}

TEST_F(reg, multi_format_names) {
	__u32 word = 0;
	__u32 idx_a, idx_b;

	ASSERT_EQ(0, ue_reg(self->data_fd, "__ue_reg_multi u32 a", &word,
			    sizeof(word), 0, USER_EVENT_REG_MULTI_FORMAT, &idx_a));
	ASSERT_EQ(0, ue_reg(self->data_fd, "__ue_reg_multi u64 a", &word,
			    sizeof(word), 1, USER_EVENT_REG_MULTI_FORMAT, &idx_b));
	ASSERT_NE(idx_a, idx_b);

	/* Two formats of one name give two tracepoints, both <name>.<id> */
	ASSERT_LE(2, count_multi("__ue_reg_multi"));

	ASSERT_EQ(0, ue_unreg(self->data_fd, &word, 0));
	ASSERT_EQ(0, ue_unreg(self->data_fd, &word, 1));
}

TEST_F(reg, enable_size_alignment_and_bits) {
	__u64 words[2] = {0};
	char *base = (char *)words;
	const char *cmd = "__ue_reg_align u32 a";

	/* Only 4 and 8 byte enable words */
	ASSERT_EQ(-1, ue_reg(self->data_fd, cmd, base, 2, 0, 0, NULL));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(-1, ue_reg(self->data_fd, cmd, base, 3, 0, 0, NULL));
	ASSERT_EQ(EINVAL, errno);

	/* A word must be naturally aligned */
	ASSERT_EQ(-1, ue_reg(self->data_fd, cmd, base + 2, 4, 0, 0, NULL));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(-1, ue_reg(self->data_fd, cmd, base + 4, 8, 0, 0, NULL));
	ASSERT_EQ(EINVAL, errno);

	/* The bit must lie inside the word */
	ASSERT_EQ(-1, ue_reg(self->data_fd, cmd, base, 4, 32, 0, NULL));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(-1, ue_reg(self->data_fd, cmd, base, 8, 64, 0, NULL));
	ASSERT_EQ(EINVAL, errno);

	ASSERT_EQ(0, ue_reg(self->data_fd, cmd, base + 4, 4, 31, 0, NULL));
	ASSERT_EQ(0, ue_unreg(self->data_fd, base + 4, 31));

	if (sizeof(long) == 8) {
		ASSERT_EQ(0, ue_reg(self->data_fd, cmd, base + 8, 8, 63, 0, NULL));
		ASSERT_EQ(0, ue_unreg(self->data_fd, base + 8, 63));
	}
}

TEST_F(reg, field_list_spacing) {
	static const char *const lists[] = { "u32 a;u32 b", "u32 a; u32 b" };
	static const char *const names[] = { "__ue_reg_nospace",
					     "__ue_reg_space" };
	char cmd[64];
	__u32 word = 0;
	__u32 first, again;
	int n, i, bit = 0;

	/*
	 * A field list without a space after its semicolon describes the
	 * same format as the spaced one: whichever is registered first, both
	 * spellings match it when registered again (the comparison splits the
	 * list after insert_space_after_semis() has added the space).
	 */
	for (n = 0; n < 2; n++) {
		snprintf(cmd, sizeof(cmd), "%s %s", names[n], lists[n]);
		ASSERT_EQ(0, ue_reg(self->data_fd, cmd, &word, sizeof(word),
				    bit++, 0, &first));
		for (i = 0; i < 2; i++) {
			snprintf(cmd, sizeof(cmd), "%s %s", names[n], lists[i]);
			ASSERT_EQ(0, ue_reg(self->data_fd, cmd, &word,
					    sizeof(word), bit++, 0, &again));
			ASSERT_EQ(first, again);
		}
		/* Two u32 fields, b right after a */
		ASSERT_EQ(ue_field_offset(names[n], "u32 a;") + 4,
			  ue_field_offset(names[n], "u32 b;"));
	}

	/* A different field list is another format: refused */
	ASSERT_EQ(-1, ue_reg(self->data_fd, "__ue_reg_space u32 a; u64 b",
			     &word, sizeof(word), bit, 0, NULL));
	ASSERT_EQ(EADDRINUSE, errno);

	while (bit--)
		ASSERT_EQ(0, ue_unreg(self->data_fd, &word, bit));
}

/* Builds "<name> u32 a" of exactly len characters */
static void long_command(char *cmd, size_t len)
{
	const char *args = " u32 a";
	size_t name_len = len - strlen(args);

	memset(cmd, 'n', name_len);
	memcpy(cmd + name_len, args, strlen(args) + 1);
}

TEST_F(reg, command_length_limit) {
	char cmd[CMD_MAX + 1];
	__u32 word = 0;

	long_command(cmd, CMD_MAX - 1);
	ASSERT_EQ(CMD_MAX - 1, strlen(cmd));
	ASSERT_EQ(0, ue_reg(self->data_fd, cmd, &word, sizeof(word), 0, 0,
			    NULL));
	ASSERT_EQ(0, ue_unreg(self->data_fd, &word, 0));

	long_command(cmd, CMD_MAX);
	ASSERT_EQ(-1, ue_reg(self->data_fd, cmd, &word, sizeof(word), 0, 0,
			     NULL));
}

TEST_HARNESS_MAIN
