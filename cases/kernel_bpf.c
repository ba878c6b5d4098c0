// SPDX-License-Identifier: GPL-2.0
/*
 * kernel_bpf: what becomes of an eBPF program attached to a user_events tracepoint
 * through perf, asserted through the raw ABI (cases/user_events_abi.h) and the bpf()
 * syscall (the program is built here instruction by instruction: no libbpf, no
 * compiler). IDs: Documentation/kernel-behaviours.md.
 *
 * ehconf-no-golden: this case writes no EventHeader event to compare; everything it
 * checks is asserted here (KTAP only).
 *
 *   K49_bpf_attach_accepted_but_never_run
 *        K49: a BPF_PROG_TYPE_TRACEPOINT program (increments map[0], returns 0) is
 *        accepted by PERF_EVENT_IOC_SET_BPF on a user_events perf event and listed by
 *        PERF_EVENT_IOC_QUERY_BPF, but 6.12's user_events perf path never runs it: the
 *        counter stays 0 and every write still reaches the perf ring (a run program
 *        returning 0 would drop them); the same program attached to sched_process_fork
 *        does count, so the program itself works.
 *
 * Without CONFIG_BPF_SYSCALL the test SKIPs with "kernel lacks CONFIG_BPF_SYSCALL".
 * Needs root (bpf(), perf_event_open on cpu 0 with PERF_SAMPLE_RAW). Without
 * /sys/kernel/tracing/user_events_data it SKIPs with "kernel lacks CONFIG_USER_EVENTS".
 */
#include <errno.h>
#include <linux/bpf.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "case_harness.h"
#include "user_events_abi.h"
#include "kernel_asserts.h"

/* How long the test waits for the child it forks for the control. */
#define CHILD_WAIT_MS 5000

/* The u32 value of the first write (the writes are PAYLOAD_MAGIC + 0..4). */
#define PAYLOAD_MAGIC 0x45484346u

static int bpf_call(int cmd, union bpf_attr *attr)
{
    return (int)syscall(SYS_bpf, cmd, attr, sizeof *attr);
}

static struct bpf_insn insn(uint8_t code, uint8_t dst, uint8_t src, int16_t off, int32_t imm)
{
    struct bpf_insn i;

    memset(&i, 0, sizeof i);
    i.code = code;
    i.dst_reg = dst & 0xf;
    i.src_reg = src & 0xf;
    i.off = off;
    i.imm = imm;
    return i;
}

/* An array map of one u64: fd or -1. */
static int bpf_counter_map(void)
{
    union bpf_attr attr;

    memset(&attr, 0, sizeof attr);
    attr.map_type = BPF_MAP_TYPE_ARRAY;
    attr.key_size = sizeof(uint32_t);
    attr.value_size = sizeof(uint64_t);
    attr.max_entries = 1;
    return bpf_call(BPF_MAP_CREATE, &attr);
}

static int bpf_counter_read(int map_fd, uint64_t *value)
{
    union bpf_attr attr;
    uint32_t key = 0;

    memset(&attr, 0, sizeof attr);
    attr.map_fd = (uint32_t)map_fd;
    attr.key = (uint64_t)(uintptr_t)&key;
    attr.value = (uint64_t)(uintptr_t)value;
    return bpf_call(BPF_MAP_LOOKUP_ELEM, &attr) == 0 ? 0 : errno;
}

/* A tracepoint program: map[0] += 1, return 0 (for a perf tracepoint: drop the
 * sample). fd or -1; the verifier's log in `log` when it refuses. */
static int bpf_counting_prog(int map_fd, char *log, size_t log_len)
{
    struct bpf_insn prog[] = {
        /* the key, 0, at fp - 4 */
        insn(BPF_ST | BPF_MEM | BPF_W, BPF_REG_10, 0, -4, 0),
        /* r1 = the map (a two-slot 64-bit load the verifier turns into the map) */
        insn(BPF_LD | BPF_IMM | BPF_DW, BPF_REG_1, BPF_PSEUDO_MAP_FD, 0, map_fd),
        insn(0, 0, 0, 0, 0),
        /* r2 = fp - 4 */
        insn(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_2, BPF_REG_10, 0, 0),
        insn(BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_2, 0, 0, -4),
        /* r0 = bpf_map_lookup_elem(r1, r2) */
        insn(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_map_lookup_elem),
        /* if r0 == NULL skip the next two */
        insn(BPF_JMP | BPF_JEQ | BPF_K, BPF_REG_0, 0, 2, 0),
        insn(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_1, 0, 0, 1),
        /* atomically *(u64 *)(r0 + 0) += r1 */
        insn(BPF_STX | BPF_ATOMIC | BPF_DW, BPF_REG_0, BPF_REG_1, 0, BPF_ADD),
        /* return 0 */
        insn(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0),
        insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
    };
    static const char license[] = "GPL";
    union bpf_attr attr;
    int fd;

    memset(&attr, 0, sizeof attr);
    attr.prog_type = BPF_PROG_TYPE_TRACEPOINT;
    attr.insn_cnt = sizeof prog / sizeof prog[0];
    attr.insns = (uint64_t)(uintptr_t)prog;
    attr.license = (uint64_t)(uintptr_t)license;
    fd = bpf_call(BPF_PROG_LOAD, &attr);
    if (fd >= 0 || !log_len)
        return fd;
    /* Refused: load again with the verifier's log, for the test's diagnostics. */
    attr.log_level = 1;
    attr.log_buf = (uint64_t)(uintptr_t)log;
    attr.log_size = (uint32_t)log_len;
    log[0] = '\0';
    fd = bpf_call(BPF_PROG_LOAD, &attr);
    if (fd >= 0) {
        close(fd);
        fd = -1;
    }
    return fd;
}

/* How many programs PERF_EVENT_IOC_QUERY_BPF lists for the perf event's tracepoint,
 * or -1. */
static int bpf_prog_count(int perf_fd)
{
    /* struct perf_event_query_bpf: ids_len, prog_cnt, then ids_len ids */
    uint32_t query[2 + 4] = {4, 0};

    if (ioctl(perf_fd, PERF_EVENT_IOC_QUERY_BPF, query) != 0)
        return -1;
    return (int)query[1];
}

/* K49: SET_BPF is accepted but the program never runs on writes; a kernel running it fails. */
TEST(K49_bpf_attach_accepted_but_never_run)
{
    static char log[65536];
    struct perf_ring ring = {.fd = -1};
    char name[64];
    uint32_t word = 0, index = 0, value;
    uint64_t after_writes = 99, after_fork = 0;
    int fd, map_fd, prog_fd, set_err, fork_set_err, listed, samples, fork_perf, writes_ok = 0;
    long fork_id;
    pid_t pid;

    /* 6.12's user_event_perf() submits with perf_trace_buf_submit(), which never calls
	 * trace_call_bpf(): a program that ran would count the writes and, returning 0,
	 * drop their samples. The sched_process_fork control proves the program counts. */
    NEED_USER_EVENTS();
    NEED_PERF();
    ue_event_name(name, sizeof name, "bpf");
    ASSERT_EQ(0, ue_pin_cpu0());
    map_fd = bpf_counter_map();
    if (map_fd < 0 && errno == ENOSYS)
        SKIP(return, "kernel lacks CONFIG_BPF_SYSCALL");
    ASSERT_LE(0, map_fd)
    {
        TH_LOG("BPF_MAP_CREATE: %s", strerror(errno));
    }
    prog_fd = bpf_counting_prog(map_fd, log, sizeof log);
    ASSERT_LE(0, prog_fd)
    {
        TH_LOG("BPF_PROG_LOAD: %s; verifier: %s", strerror(errno), log);
    }

    fd = ue_open();
    ASSERT_LE(0, fd);
    ASSERT_EQ(0, ue_register(fd, name, "u32 value", &word, 0, &index));
    ASSERT_EQ(0, perf_ring_open(&ring, tracepoint_id(name)));
    set_err = ioctl(ring.fd, PERF_EVENT_IOC_SET_BPF, prog_fd) == 0 ? 0 : errno;
    listed = bpf_prog_count(ring.fd);
    EXPECT_TRUE(wait_bits(&word, 1u, true, UE_WAIT_MS));
    for (uint32_t i = 0; i < 5; i++) {
        value = PAYLOAD_MAGIC + i;
        writes_ok += ue_writev(fd, index, &value, sizeof value) == 0;
    }
    samples = perf_ring_count(&ring);
    EXPECT_EQ(0, bpf_counter_read(map_fd, &after_writes));
    perf_ring_close(&ring);
    ue_unregister(fd, &word, 0);
    close(fd);

    /* Control: the same program on a kernel tracepoint that goes through
	 * perf_trace_run_bpf_submit(); this process forks on cpu 0. */
    fork_id = tracepoint_id_in("sched", "sched_process_fork");
    ASSERT_LT(0, fork_id);
    fork_perf = perf_attach_id(_metadata, fork_id);
    fork_set_err = ioctl(fork_perf, PERF_EVENT_IOC_SET_BPF, prog_fd) == 0 ? 0 : errno;
    fflush(stdout);
    fflush(stderr);
    pid = fork();
    if (pid == 0)
        _exit(0);
    EXPECT_EQ(0, ue_reap(pid, CHILD_WAIT_MS));
    EXPECT_EQ(0, bpf_counter_read(map_fd, &after_fork));
    close(fork_perf);
    close(prog_fd);
    close(map_fd);

    printf("# bpf program runs: user_events writes %llu, sched_process_fork %llu\n",
           (unsigned long long)after_writes, (unsigned long long)after_fork);
    fflush(stdout);
    EXPECT_EQ(0, set_err)
    {
        TH_LOG("PERF_EVENT_IOC_SET_BPF on the user_events perf event: %s", strerror(set_err));
    }
    EXPECT_EQ(1, listed);
    EXPECT_EQ(5, writes_ok);
    EXPECT_EQ(5, samples);
    EXPECT_EQ(0u, after_writes);
    EXPECT_EQ(0, fork_set_err);
    EXPECT_LE(1u, after_fork)
    {
        TH_LOG("the control program did not run: the test cannot tell");
    }
}

TEST_HARNESS_MAIN
