/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the user_events behaviour tests: registration through
 * the raw ABI, enabling through ftrace and perf, and waiting for the
 * asynchronous parts of the ABI (enable bit updates, automatic deletion).
 */

#ifndef _USER_EVENTS_HELPERS_H
#define _USER_EVENTS_HELPERS_H

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <linux/user_events.h>

#define UE_TRACEFS "/sys/kernel/tracing"
#define UE_DATA_FILE UE_TRACEFS "/user_events_data"
#define UE_STATUS_FILE UE_TRACEFS "/user_events_status"
#define UE_DYN_FILE UE_TRACEFS "/dynamic_events"
#define UE_EVENTS_DIR UE_TRACEFS "/events/user_events"

/* How long to wait for the kernel's asynchronous work, in milliseconds */
#define UE_WAIT_MS 5000

static inline int ue_reg(int fd, const char *cmd, void *addr, int size,
			 int bit, unsigned short flags, __u32 *index)
{
	struct user_reg reg = {0};
	int ret;

	reg.size = sizeof(reg);
	reg.name_args = (__u64)(unsigned long)cmd;
	reg.enable_addr = (__u64)(unsigned long)addr;
	reg.enable_size = size;
	reg.enable_bit = bit;
	reg.flags = flags;

	ret = ioctl(fd, DIAG_IOCSREG, &reg);
	if (ret == 0 && index)
		*index = reg.write_index;

	return ret;
}

static inline int ue_unreg(int fd, void *addr, int bit)
{
	struct user_unreg unreg = {0};

	unreg.size = sizeof(unreg);
	unreg.disable_addr = (__u64)(unsigned long)addr;
	unreg.disable_bit = bit;

	return ioctl(fd, DIAG_IOCSUNREG, &unreg);
}

static inline int ue_write_str(const char *path, const char *str, int flags)
{
	int fd = open(path, O_WRONLY | flags);
	int ret = 0;

	if (fd == -1)
		return -1;

	if (write(fd, str, strlen(str)) != (ssize_t)strlen(str))
		ret = -1;

	close(fd);

	return ret;
}

/* Reads a whole (small) tracefs file into buf; returns its length or -1 */
static inline int ue_read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	size_t used = 0;
	ssize_t ret;

	if (fd == -1)
		return -1;

	while (used < len - 1) {
		ret = read(fd, buf + used, len - 1 - used);
		if (ret <= 0)
			break;
		used += ret;
	}

	buf[used] = '\0';
	close(fd);

	return used;
}

/*
 * Whether the trace file of dir has a line recording the event with text
 * in it (field values print in different forms on different kernels)
 */
static inline bool ue_trace_has(const char *dir, const char *name,
				const char *text)
{
	static char buf[65536];
	char path[256], *pos, *end;
	size_t len = strlen(name);

	snprintf(path, sizeof(path), "%s/trace", dir);
	if (ue_read_file(path, buf, sizeof(buf)) <= 0)
		return false;

	for (pos = buf; pos; pos = end ? end + 1 : NULL) {
		end = strchr(pos, '\n');
		if (end)
			*end = '\0';

		pos = strstr(pos, name);
		if (pos && pos[len] == ':' && strstr(pos, text))
			return true;
	}

	return false;
}

/* Path of an event's file under events/<system>/ of the top-level buffer */
static inline void ue_event_path(char *buf, size_t len, const char *name,
				 const char *file)
{
	snprintf(buf, len, "%s/%s/%s", UE_EVENTS_DIR, name, file);
}

/* Offset of a field in the event's format file, or -1 */
static inline int ue_field_offset(const char *name, const char *field)
{
	char path[256], buf[4096], *pos;

	ue_event_path(path, sizeof(path), name, "format");
	if (ue_read_file(path, buf, sizeof(buf)) <= 0)
		return -1;

	pos = strstr(buf, field);
	if (!pos)
		return -1;

	pos = strstr(pos, "offset:");
	if (!pos)
		return -1;

	return atoi(pos + strlen("offset:"));
}

static inline int ue_ftrace_enable(const char *name, bool on)
{
	char path[256];

	ue_event_path(path, sizeof(path), name, "enable");

	return ue_write_str(path, on ? "1" : "0", 0);
}

static inline bool ue_event_exists(const char *name)
{
	char path[256];
	struct stat st;

	ue_event_path(path, sizeof(path), name, "");

	return stat(path, &st) == 0;
}

/* Waits until the event is gone (deletion is asynchronous) */
static inline bool ue_wait_gone(const char *name)
{
	int i;

	for (i = 0; i < UE_WAIT_MS; ++i) {
		if (!ue_event_exists(name))
			return true;
		usleep(1000);
	}

	return false;
}

/* Waits until (*word & mask) == want; enable updates may be deferred */
static inline bool ue_wait_bits(__u32 *word, __u32 mask, __u32 want)
{
	int i;

	for (i = 0; i < UE_WAIT_MS; ++i) {
		if ((__atomic_load_n(word, __ATOMIC_RELAXED) & mask) == want)
			return true;
		usleep(1000);
	}

	return false;
}

/*
 * Deletes an event, retrying while the last reference of an unregistered
 * enabler is still being released (EBUSY for a short while after close).
 */
static inline int ue_delete(const char *name)
{
	int fd = open(UE_DATA_FILE, O_RDWR);
	int i, ret = -1;

	if (fd == -1)
		return -1;

	for (i = 0; i < UE_WAIT_MS; ++i) {
		ret = ioctl(fd, DIAG_IOCSDEL, name);
		if (ret == 0 || errno != EBUSY)
			break;
		usleep(1000);
	}

	close(fd);

	return ret;
}

/* Opens a perf event on the tracepoint of the event; returns its fd or -1 */
static inline int ue_perf_open(const char *name)
{
	struct perf_event_attr pe = {0};
	char path[256], id[32];

	ue_event_path(path, sizeof(path), name, "id");
	if (ue_read_file(path, id, sizeof(id)) <= 0)
		return -1;

	pe.type = PERF_TYPE_TRACEPOINT;
	pe.size = sizeof(pe);
	pe.config = strtoull(id, NULL, 10);
	pe.sample_type = PERF_SAMPLE_RAW;
	pe.sample_period = 1;
	pe.wakeup_events = 1;

	return syscall(__NR_perf_event_open, &pe, 0, -1, -1, 0);
}

#endif /* _USER_EVENTS_HELPERS_H */
