// SPDX-License-Identifier: GPL-2.0
//
// emit <file.events>: ehconf's emitter for microsoft/LinuxTracepoints' C++ builder,
// EventHeaderDynamic.h (ehd::Provider, ehd::EventSet, ehd::EventBuilder).
//
// Reads a case description (Documentation/case-descriptions.md) with libdesc, the C parser
// of the format (emitlib/c/desc.h: a `repeat` comes unrolled), and writes every event of it
// through that API, with the steps it names (register, unregister, threads, fork).
// Prints one line per `event` statement, numbered from 1 in file order:
//   event <n> written
//   event <n> skipped <reason>       the API cannot express it: nothing was written
//   event <n> failed <call> returned <errno name>
// then `emit: N written, N skipped, N failed`. Exit status 0 when every event was
// written, 1 otherwise, 2 for a description it cannot parse (`file:line: reason`).
// `emit --types` prints the type table it was built with (name, encoding, format: libdesc's,
// from descriptions/types.txt). `emit --contract` answers the line protocol of
// Documentation/impl-contract.md (its section below says how). `emit --bench COUNT
// <file.events>` times each event COUNT times (its section below, make bench-impls).
//
// Each field's encoding maps to the builder call that writes it, with the field's format
// (add_field below). An array of structs has no Add* call: it goes through the
// RawAddMeta*/RawAddData* methods the header documents for it.
// Steps: `register` constructs an ehd::Provider(name, group) (the constructor opens it;
// each event's level and keyword get their EventSet from RegisterSet), `unregister` calls
// Unregister() and destroys it (the API has no way back: registering again is a new
// Provider; libdesc's desc_provider.user points at its ProviderState). An event is bound to
// the last `provider` statement before it in the file.
// `threads`: one std::thread per block (RegisterSet under a lock: Provider is not
// thread-safe, EventSet is); `fork`: the child writes its block and _exits, the parent
// writes the `parent` block meanwhile, then waits.
// Built by impl/lttp-cpp/build with -DNDEBUG, as the library's Release build: the
// header's preconditions that this file can check are checked before the call (and the
// event skipped); the rest is what a user's release build does.

#include <eventheader/EventHeaderDynamic.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"
#include "contract_loop.h"
#include "desc.h"

namespace
{

// ---- the description ------------------------------------------------------------------

enum Encoding : uint8_t {
    ENC_STRUCT = 1,
    ENC_VALUE8 = 2,
    ENC_VALUE16 = 3,
    ENC_VALUE32 = 4,
    ENC_VALUE64 = 5,
    ENC_VALUE128 = 6,
    ENC_ZSTRING8 = 7,
    ENC_ZSTRING16 = 8,
    ENC_ZSTRING32 = 9,
    ENC_STRING8 = 10,
    ENC_STRING16 = 11,
    ENC_STRING32 = 12,
    ENC_BINARY8 = 13,
};

// ---- a field of libdesc's description, as the builder calls want it ---------------------

// Its encoding, ENC_STRUCT for a struct and an array of structs.
uint8_t encoding(desc_field const &f)
{
    return f.kind == DESC_STRUCT || f.kind == DESC_STRUCT_SLICE ? uint8_t(ENC_STRUCT) : f.encoding;
}

bool varray(desc_field const &f)
{
    return f.kind == DESC_VARRAY || f.kind == DESC_STRUCT_SLICE;
}

// Its elements as bytes: each value of a value field, a string's code units as one.
std::vector<std::string> values(desc_field const &f)
{
    char const *data = reinterpret_cast<char const *>(f.data);
    if (f.kind == DESC_STRING)
        return {std::string(data, f.size)};
    std::vector<std::string> out;
    for (uint32_t i = 0; i < f.count; i++)
        out.emplace_back(data + size_t(i) * f.unit, f.unit);
    return out;
}

// The members of a struct, or the shape of an array of structs' elements.
struct Members {
    desc_field const *begin_, *end_;
    desc_field const *begin() const
    {
        return begin_;
    }
    desc_field const *end() const
    {
        return end_;
    }
    size_t size() const
    {
        return size_t(end_ - begin_);
    }
    bool empty() const
    {
        return begin_ == end_;
    }
};

Members members(desc_field const &f, uint32_t element = 0)
{
    if (f.kind == DESC_STRUCT_SLICE)
        return {f.members[element].members,
                f.members[element].members + f.members[element].n_members};
    return {f.members, f.members + f.n_members};
}

Members fields_of(desc_event const &ev)
{
    return {ev.fields, ev.fields + ev.n_fields};
}

// ---- the run ---------------------------------------------------------------------------

std::mutex g_out;      // lines on stdout
std::mutex g_provider; // ehd::Provider is not thread-safe (EventHeaderDynamic.h, Provider)
std::atomic<int> g_written{0}, g_skipped{0}, g_failed{0};

char const *errno_name(int err)
{
    char const *n = strerrorname_np(err);
    return n ? n : "an unknown errno";
}

void report(int ordinal, char const *state, std::string const &why)
{
    std::lock_guard<std::mutex> lock(g_out);
    if (why.empty())
        printf("event %d %s\n", ordinal, state);
    else
        printf("event %d %s %s\n", ordinal, state, why.c_str());
    fflush(stdout);
    (state[0] == 'w' ? g_written : state[0] == 's' ? g_skipped : g_failed)++;
}

std::string printable(std::string const &s)
{
    std::string out;
    char buf[8];
    for (unsigned char c : s) {
        if (c > 0x20 && c < 0x7F && c != '%') {
            out += static_cast<char>(c);
        } else {
            snprintf(buf, sizeof(buf), "%%%02X", c);
            out += buf;
        }
    }
    return out;
}

struct ProviderState {
    std::string name;
    std::string group;
    std::unique_ptr<ehd::Provider> provider; // null while unregistered
    std::string unusable;                    // why the API cannot take this name
};

std::vector<std::unique_ptr<ProviderState>> g_providers;

// The preconditions of the Provider constructor (EventHeaderDynamic.h, "Requires:").
std::string provider_problem(std::string const &name, std::string const &group)
{
    if (name.find_first_of(std::string(" :\0", 3)) != std::string::npos)
        return "ehd::Provider requires a provider name without NUL, ' ' or ':'";
    if (name.size() + group.size() >= 234)
        return "ehd::Provider requires strlen(providerName) + strlen(groupName) < 234 (have " +
               std::to_string(name.size() + group.size()) + ")";
    for (char c : group)
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z')))
            return "ehd::Provider requires a group name of ASCII lowercase letters and digits only";
    return "";
}

// Why the builder cannot express these fields ("" when it can).
std::string fields_problem(Members fields)
{
    for (desc_field const &f : fields) {
        if (f.kind == DESC_CARRAY)
            return "constant-length array: EventHeaderDynamic.h has none (Add*Range write "
                   "variable-length arrays, RawAddMetaScalar takes no array flag): field " +
                   printable(f.name);
        if (encoding(f) == ENC_STRUCT) {
            Members m = members(f);
            if (m.empty())
                return "empty struct: AddStruct requires 1 to 127 fields: field " +
                       printable(f.name);
            if (m.size() > 127)
                return "struct of more than 127 fields: AddStruct takes 1 to 127 (uint8_t "
                       "structFieldCount < 128): field " +
                       printable(f.name);
            std::string p = fields_problem(m);
            if (!p.empty())
                return p;
        }
    }
    return "";
}

// ---- fields through the typed API ------------------------------------------------------

template <class T> std::vector<T> as_values(std::vector<std::string> const &items)
{
    std::vector<T> out(items.size());
    for (size_t i = 0; i < items.size(); i++)
        memcpy(&out[i], items[i].data(), sizeof(T));
    return out;
}

template <class C> std::basic_string<C> as_string(std::string const &bytes)
{
    std::basic_string<C> s(bytes.size() / sizeof(C), C());
    if (!bytes.empty())
        memcpy(&s[0], bytes.data(), bytes.size());
    return s;
}

template <class C>
std::vector<std::basic_string<C>> as_strings(std::vector<std::string> const &items)
{
    std::vector<std::basic_string<C>> out;
    for (std::string const &item : items)
        out.push_back(as_string<C>(item));
    return out;
}

template <class T>
void add_value(ehd::EventBuilder &eb, desc_field const &f, event_field_format fmt)
{
    std::vector<T> v = as_values<T>(values(f));
    if (varray(f))
        eb.AddValueRange(f.name, v.data(), v.data() + v.size(), fmt, f.tag);
    else
        eb.AddValue(f.name, v[0], fmt, f.tag);
}

template <class C>
void add_counted(ehd::EventBuilder &eb, desc_field const &f, event_field_format fmt)
{
    std::vector<std::basic_string<C>> v = as_strings<C>(values(f));
    if (varray(f))
        eb.AddStringRange<C>(f.name, v.begin(), v.end(), fmt, f.tag);
    else
        eb.AddString<C>(f.name, std::basic_string_view<C>(v[0]), fmt, f.tag);
}

template <class C>
void add_zstring(ehd::EventBuilder &eb, desc_field const &f, event_field_format fmt)
{
    std::vector<std::basic_string<C>> v = as_strings<C>(values(f));
    if (varray(f))
        eb.AddNulTerminatedStringRange<C>(f.name, v.begin(), v.end(), fmt, f.tag);
    else
        eb.AddNulTerminatedString<C>(f.name, std::basic_string_view<C>(v[0]), fmt, f.tag);
}

void add_binary(ehd::EventBuilder &eb, desc_field const &f, event_field_format fmt)
{
    std::vector<std::string> const v = values(f);
    if (varray(f))
        eb.AddBinaryRange<char>(f.name, v.begin(), v.end(), fmt, f.tag);
    else
        eb.AddBinary<char>(f.name, std::string_view(v[0]), fmt, f.tag);
}

void raw_meta(ehd::EventBuilder &eb, desc_field const &f);
void raw_data(ehd::EventBuilder &eb, desc_field const &f);

void add_field(ehd::EventBuilder &eb, desc_field const &f)
{
    auto const fmt = static_cast<event_field_format>(f.format);
    switch (encoding(f)) {
    case ENC_STRUCT:
        if (varray(f)) {
            // An array of structs: no Add* call exists; the header's RawAddMeta*/RawAddData*
            // methods are documented for exactly this ("e.g. array-of-struct").
            raw_meta(eb, f);
            raw_data(eb, f);
        } else {
            eb.AddStruct(f.name, static_cast<uint8_t>(members(f).size()), f.tag);
            for (desc_field const &m : members(f))
                add_field(eb, m);
        }
        break;
    case ENC_VALUE8: add_value<uint8_t>(eb, f, fmt); break;
    case ENC_VALUE16: add_value<uint16_t>(eb, f, fmt); break;
    case ENC_VALUE32: add_value<uint32_t>(eb, f, fmt); break;
    case ENC_VALUE64: add_value<uint64_t>(eb, f, fmt); break;
    case ENC_VALUE128: add_value<ehd::Value128>(eb, f, fmt); break;
    case ENC_ZSTRING8: add_zstring<char>(eb, f, fmt); break;
    case ENC_ZSTRING16: add_zstring<char16_t>(eb, f, fmt); break;
    case ENC_ZSTRING32: add_zstring<char32_t>(eb, f, fmt); break;
    case ENC_STRING8: add_counted<char>(eb, f, fmt); break;
    case ENC_STRING16: add_counted<char16_t>(eb, f, fmt); break;
    case ENC_STRING32: add_counted<char32_t>(eb, f, fmt); break;
    case ENC_BINARY8: add_binary(eb, f, fmt); break;
    default: break; // the parser accepts nothing else
    }
}

// ---- an array of structs through the raw methods -----------------------------------------

void raw_meta(ehd::EventBuilder &eb, desc_field const &f)
{
    bool const is_struct = encoding(f) == ENC_STRUCT;
    auto const enc = static_cast<event_field_encoding>(encoding(f));
    auto const fmt = static_cast<event_field_format>(is_struct ? members(f).size() : f.format);
    if (varray(f))
        eb.RawAddMetaVcount(f.name, enc, fmt, f.tag);
    else
        eb.RawAddMetaScalar(f.name, enc, fmt, f.tag);
    if (is_struct)
        for (desc_field const &m : members(f))
            raw_meta(eb, m);
}

void raw_bytes(ehd::EventBuilder &eb, std::string const &bytes)
{
    for (size_t done = 0; done < bytes.size();) {
        size_t n = bytes.size() - done < 0xFFFF ? bytes.size() - done : 0xFFFF;
        eb.RawAddDataValues(reinterpret_cast<uint8_t const *>(bytes.data() + done),
                            static_cast<uint16_t>(n));
        done += n;
    }
}

void raw_item(ehd::EventBuilder &eb, desc_field const &f, std::string const &bytes)
{
    switch (f.encoding) {
    case ENC_ZSTRING8:
    case ENC_ZSTRING16:
    case ENC_ZSTRING32:
        raw_bytes(eb, bytes);
        raw_bytes(eb, std::string(f.unit, '\0'));
        break;
    case ENC_STRING8:
    case ENC_STRING16:
    case ENC_STRING32:
    case ENC_BINARY8:
        eb.RawAddDataValue(static_cast<uint16_t>(bytes.size() / f.unit));
        raw_bytes(eb, bytes);
        break;
    default: raw_bytes(eb, bytes); break;
    }
}

void raw_data(ehd::EventBuilder &eb, desc_field const &f)
{
    if (encoding(f) == ENC_STRUCT) {
        if (varray(f)) {
            eb.RawAddDataValue(static_cast<uint16_t>(f.count));
            for (uint32_t e = 0; e < f.count; e++)
                for (desc_field const &m : members(f, e))
                    raw_data(eb, m);
        } else {
            for (desc_field const &m : members(f))
                raw_data(eb, m);
        }
        return;
    }
    std::vector<std::string> const items = values(f);
    if (varray(f))
        eb.RawAddDataValue(static_cast<uint16_t>(items.size()));
    for (std::string const &item : items)
        raw_item(eb, f, item);
}

// ---- steps -----------------------------------------------------------------------------

void write_event(desc_event const &ev)
{
    ProviderState *ps = static_cast<ProviderState *>(ev.provider->user);
    if (!ps->unusable.empty()) {
        report(ev.ordinal, "skipped", "provider " + printable(ps->name) + ": " + ps->unusable);
        return;
    }
    std::string problem = fields_problem(fields_of(ev));
    if (!problem.empty()) {
        report(ev.ordinal, "skipped", problem);
        return;
    }

    std::shared_ptr<ehd::EventSet const> set;
    int provider_errno = 0;
    {
        std::lock_guard<std::mutex> lock(g_provider);
        if (ps->provider) {
            provider_errno = ps->provider->Errno();
            set = ps->provider->RegisterSet(static_cast<event_level>(ev.level), ev.keyword);
        }
    }
    // An event of an unregistered provider goes to an inactive EventSet, the header's own
    // placeholder ("any attempt to write to this event set will have no effect").
    ehd::EventSet const inactive;
    ehd::EventSet const *target = &inactive;
    if (ps->provider) {
        if (!set) {
            report(ev.ordinal, "failed",
                   "ehd::Provider::RegisterSet returned nullptr (out of memory)");
            return;
        }
        if (set->Errno() != 0) {
            report(ev.ordinal, "failed",
                   std::string(provider_errno ? "ehd::Provider (eventheader_open_provider)"
                                              : "ehd::Provider::RegisterSet") +
                       " returned " + errno_name(set->Errno()));
            return;
        }
        target = set.get();
    }

    ehd::EventBuilder eb;
    eb.Reset(ev.name, ev.tag);
    eb.IdVersion(ev.id, ev.version);
    eb.Opcode(static_cast<event_opcode>(ev.opcode));
    for (desc_field const &f : fields_of(ev))
        add_field(eb, f);
    // related= without activity=: passed as given. The header requires relatedId to be
    // nullptr when activityId is (an assert in a debug build); a release build drops it.
    int err = eb.Write(*target, ev.has_activity ? ev.activity : nullptr,
                       ev.has_related ? ev.related : nullptr);
    if (err)
        report(ev.ordinal, "failed",
               std::string("EventBuilder::Write returned ") + errno_name(err));
    else
        report(ev.ordinal, "written", "");
}

void run_steps(desc_block const &steps);

void collect_events(desc_block const &steps, std::vector<int> &out)
{
    for (uint32_t i = 0; i < steps.n_steps; i++) {
        desc_step const &s = steps.steps[i];
        if (s.kind == DESC_STEP_EVENT)
            out.push_back(int(s.event->ordinal));
        for (uint32_t b = 0; b < s.n_blocks; b++)
            collect_events(s.blocks[b], out);
    }
}

void fail_all(desc_block const &steps, std::string const &why)
{
    std::vector<int> ordinals;
    collect_events(steps, ordinals);
    for (int o : ordinals)
        report(o, "failed", why);
}

// Reads up to `size` bytes, across short reads and EINTR; returns how many came.
size_t read_full(int fd, void *buf, size_t size)
{
    size_t got = 0;
    while (got < size) {
        ssize_t n = read(fd, static_cast<char *>(buf) + got, size - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += static_cast<size_t>(n);
    }
    return got;
}

// The child writes blocks[0] and exits; the parent writes blocks[1] meanwhile, then
// waits. The child's lines go to the same stdout; its counts come back through a pipe.
void run_fork(desc_step const &st)
{
    int fds[2];
    if (pipe(fds) != 0) {
        fail_all(st.blocks[0], std::string("pipe returned ") + errno_name(errno));
        run_steps(st.blocks[1]);
        return;
    }
    {
        std::lock_guard<std::mutex> lock(g_out);
        fflush(stdout);
        fflush(stderr);
    }
    int const before[3] = {g_written.load(), g_skipped.load(), g_failed.load()};
    pid_t pid = fork();
    if (pid < 0) {
        int err = errno;
        close(fds[0]);
        close(fds[1]);
        fail_all(st.blocks[0], std::string("fork returned ") + errno_name(err));
        run_steps(st.blocks[1]);
        return;
    }
    if (pid == 0) {
        close(fds[0]);
        run_steps(st.blocks[0]);
        int const counts[3] = {g_written.load() - before[0], g_skipped.load() - before[1],
                               g_failed.load() - before[2]};
        fflush(stdout);
        ssize_t n = write(fds[1], counts, sizeof(counts));
        _exit(n == static_cast<ssize_t>(sizeof(counts)) ? 0 : 1);
    }
    close(fds[1]);
    run_steps(st.blocks[1]);
    int counts[3] = {0, 0, 0};
    size_t got = read_full(fds[0], counts, sizeof(counts));
    close(fds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (got == sizeof(counts)) {
        g_written += counts[0];
        g_skipped += counts[1];
        g_failed += counts[2];
    } else {
        fprintf(stderr, "emit: the forked child (line %d) ended without its counts (status 0x%x)\n",
                int(st.line), status);
        g_failed++;
    }
}

void run_steps(desc_block const &steps)
{
    for (uint32_t i = 0; i < steps.n_steps; i++) {
        desc_step const &st = steps.steps[i];
        switch (st.kind) {
        case DESC_STEP_REGISTER: {
            std::lock_guard<std::mutex> lock(g_provider);
            ProviderState *ps = static_cast<ProviderState *>(st.provider->user);
            if (ps->unusable.empty() && !ps->provider) {
                ps->provider = std::make_unique<ehd::Provider>(ps->name, ps->group);
                if (ps->provider->Errno())
                    fprintf(stderr, "emit: line %u: ehd::Provider(%s) returned %s\n", st.line,
                            printable(ps->name).c_str(), errno_name(ps->provider->Errno()));
            }
            break;
        }
        case DESC_STEP_UNREGISTER: {
            // Provider has Unregister() but no way back: registering again is a new Provider.
            std::lock_guard<std::mutex> lock(g_provider);
            ProviderState *ps = static_cast<ProviderState *>(st.provider->user);
            if (ps->provider) {
                ps->provider->Unregister();
                ps->provider.reset();
            }
            break;
        }
        case DESC_STEP_EVENT: write_event(*st.event); break;
        case DESC_STEP_THREADS: {
            std::vector<std::thread> threads;
            for (uint32_t b = 0; b < st.n_blocks; b++) {
                desc_block const &block = st.blocks[b];
                try {
                    threads.emplace_back(run_steps, std::cref(block));
                } catch (std::exception const &e) {
                    fail_all(block, std::string("std::thread failed: ") + e.what());
                }
            }
            for (auto &t : threads)
                t.join();
            break;
        }
        case DESC_STEP_FORK: run_fork(st); break;
        }
    }
}

// ---- emit --bench ----------------------------------------------------------------------
// emit --bench COUNT FILE.events (emitlib/c/bench.h, make bench-impls): the register and
// unregister steps as above; each event COUNT times in a row the way a user of the builder
// writes one: the EventSet (RegisterSet) and one EventBuilder once, then per write
// EventSet::Enabled() and, when enabled, Reset, the adds and Write. A value or a string of
// one code unit size goes from the parsed bytes straight to AddValue/AddString, as a user
// passes typed values (add_field converts through std::string copies, fine once per event
// for the conformance run, but a cost of this file, not of the API, inside a timed loop);
// anything else goes through add_field.

template <class T> T bench_value(desc_field const &f)
{
    T v;
    memcpy(&v, f.data, sizeof v);
    return v;
}

void bench_add(ehd::EventBuilder &eb, desc_field const &f)
{
    auto const fmt = static_cast<event_field_format>(f.format);
    char const *chars = reinterpret_cast<char const *>(f.data);
    if (f.kind == DESC_VALUE) {
        switch (f.encoding) {
        case ENC_VALUE8: return (void)eb.AddValue(f.name, bench_value<uint8_t>(f), fmt, f.tag);
        case ENC_VALUE16: return (void)eb.AddValue(f.name, bench_value<uint16_t>(f), fmt, f.tag);
        case ENC_VALUE32: return (void)eb.AddValue(f.name, bench_value<uint32_t>(f), fmt, f.tag);
        case ENC_VALUE64: return (void)eb.AddValue(f.name, bench_value<uint64_t>(f), fmt, f.tag);
        case ENC_VALUE128:
            return (void)eb.AddValue(f.name, bench_value<ehd::Value128>(f), fmt, f.tag);
        default: break;
        }
    } else if (f.kind == DESC_STRING && f.encoding == ENC_STRING8) {
        return (void)eb.AddString<char>(f.name, std::string_view(chars, f.size), fmt, f.tag);
    } else if (f.kind == DESC_STRING && f.encoding == ENC_ZSTRING8) {
        return (void)eb.AddNulTerminatedString<char>(f.name, std::string_view(chars, f.size), fmt,
                                                     f.tag);
    }
    add_field(eb, f);
}

int bench_event(desc_event const &ev, uint64_t count)
{
    ProviderState *ps = static_cast<ProviderState *>(ev.provider->user);
    std::string problem = ps->unusable.empty() ? fields_problem(fields_of(ev)) : ps->unusable;
    if (!ps->provider || !problem.empty()) {
        fprintf(stderr, "emit: bench: event %u: %s\n", ev.ordinal,
                problem.empty() ? "its provider is not registered" : problem.c_str());
        return 1;
    }
    std::shared_ptr<ehd::EventSet const> set =
        ps->provider->RegisterSet(static_cast<event_level>(ev.level), ev.keyword);
    if (!set || set->Errno()) {
        fprintf(stderr, "emit: bench: event %u: RegisterSet failed\n", ev.ordinal);
        return 1;
    }
    ehd::EventBuilder eb;
    uint64_t failed = 0;
    uint64_t const t0 = bench_now_ns();
    for (uint64_t i = 0; i < count; i++) {
        if (!set->Enabled())
            continue;
        eb.Reset(ev.name, ev.tag);
        eb.IdVersion(ev.id, ev.version);
        eb.Opcode(static_cast<event_opcode>(ev.opcode));
        for (desc_field const &f : fields_of(ev))
            bench_add(eb, f);
        failed += eb.Write(*set, ev.has_activity ? ev.activity : nullptr,
                           ev.has_related ? ev.related : nullptr) != 0;
    }
    bench_report(ev.ordinal, count, bench_now_ns() - t0, failed);
    return failed != 0;
}

int bench_main(char const *count_text, desc const &d)
{
    uint64_t count;
    if (bench_count(count_text, &count)) {
        fprintf(stderr, "emit: --bench %s: COUNT is 1 to 10000000000\n", count_text);
        return 2;
    }
    int rc = 0;
    for (uint32_t i = 0; i < d.main.n_steps; i++) {
        desc_step const &st = d.main.steps[i];
        if (st.kind == DESC_STEP_EVENT)
            rc |= bench_event(*st.event, count);
        else if (st.kind == DESC_STEP_REGISTER || st.kind == DESC_STEP_UNREGISTER)
            run_steps(desc_block{&d.main.steps[i], 1});
        else {
            fprintf(stderr, "emit: line %u: emit --bench times events of the main flow only\n",
                    st.line);
            return 2;
        }
    }
    return rc;
}

// ---- emit --contract -------------------------------------------------------------------
// Documentation/impl-contract.md: one command a line on stdin, one answer line on stdout,
// flushed at once (the guest reads through a pipe). Every write is the one event:
// EhconfContract (no group), Contract, level 4, keyword 0x1, `seq` u32 and `pad` str8.
//
// The state is what a user of the API holds: the Provider and the shared_ptr<EventSet>
// RegisterSet gave. `unregister` calls Unregister() and keeps both: the API hands out
// shared_ptr so that a set may outlive its registration, and a user's check or write after
// it goes to that set (the close resets it: Enabled() false, Write EBADF). `register`
// constructs a new Provider each time, as the case steps do: RegisterSet on a Provider
// after its Unregister() gives a set with Errno() 0 that is never connected (the closed
// provider's data_file is -1), so re-registering the same object would fail silently.
// Before any `register`, `write` goes to the header's placeholder, a default EventSet, and
// answers what Write returns for it (EBADF), as for an unregistered provider's event above.
// Commands run one at a time (thread-register joins before answering): no lock.

event_level const CONTRACT_LEVEL = static_cast<event_level>(4);
uint64_t const CONTRACT_KEYWORD = 0x1;

std::unique_ptr<ehd::Provider> g_contract;
std::shared_ptr<ehd::EventSet const> g_contract_set;

// 0 or the errno; the old Provider unregisters when it is replaced.
int contract_register()
{
    g_contract_set.reset();
    g_contract.reset(new (std::nothrow) ehd::Provider("EhconfContract"));
    if (g_contract)
        g_contract_set = g_contract->RegisterSet(CONTRACT_LEVEL, CONTRACT_KEYWORD);
    if (!g_contract_set)
        return ENOMEM; // RegisterSet's nullptr means out of memory
    // The set's Errno() carries the constructor's (eventheader_open_provider) as well.
    return g_contract_set->Errno();
}

int contract_unregister()
{
    if (g_contract)
        g_contract->Unregister(); // returns nothing: "does nothing" when not registered
    return 0;
}

int contract_enabled()
{
    return ehd::Enabled(g_contract_set) ? 1 : 0;
}

int contract_write(uint32_t seq, uint32_t pad)
{
    ehd::EventSet const placeholder;
    ehd::EventBuilder eb;
    eb.Reset("Contract");
    eb.AddValue("seq", seq, event_field_format_default);
    eb.AddString<char>("pad", std::string(pad, 'p'), event_field_format_default);
    return eb.Write(g_contract_set ? *g_contract_set : placeholder);
}

// The loop, its grammar, fork (the child checks and writes with what it inherited and
// _exits, so no destructor unregisters the parent's provider) and thread-register are
// emitlib/c/contract_loop.c's, shared with the C emitters.
int contract_main()
{
    static contract_api const api = {contract_register, contract_unregister, contract_enabled,
                                     contract_write};
    return contract_loop(&api);
}

} // namespace

int main(int argc, char **argv)
{
    bool const bench = argc == 4 && strcmp(argv[1], "--bench") == 0;
    if (argc != 2 && !bench) {
        fprintf(stderr, "usage: emit <file.events> | emit --types | emit --contract\n"
                        "       emit --bench COUNT <file.events>\n");
        return 2;
    }
    if (strcmp(argv[1], "--contract") == 0)
        return contract_main();
    if (strcmp(argv[1], "--types") == 0) {
        // The type table, for tests/harness/test_impl_lttp_cpp.py to hold against
        // descriptions/types.txt: name, encoding and format in hex.
        uint8_t enc, fmt;
        char const *name;
        for (size_t i = 0; (name = desc_type_at(i, &enc, &fmt)); i++)
            printf("%s 0x%02x 0x%02x\n", name, enc, fmt);
        return 0;
    }
    desc d;
    char err[1024];
    if (desc_parse(argv[argc - 1], &d, err, sizeof(err))) {
        fprintf(stderr, "%s\n", err); // `file:line: reason`, as the format asks
        return 2;
    }
    for (uint32_t i = 0; i < d.n_providers; i++) {
        desc_provider *p = d.providers[i];
        g_providers.push_back(std::make_unique<ProviderState>());
        g_providers.back()->name = p->name;
        g_providers.back()->group = p->group ? p->group : "";
        g_providers.back()->unusable = provider_problem(p->name, g_providers.back()->group);
        p->user = g_providers.back().get();
    }
    int bench_rc = 0;
    try {
        if (bench)
            bench_rc = bench_main(argv[2], d);
        else
            run_steps(d.main);
    } catch (std::exception const &e) {
        fprintf(stderr, "emit: %s\n", e.what());
        g_failed++;
    }
    {
        std::lock_guard<std::mutex> lock(g_provider);
        g_providers.clear(); // unregisters what is still registered
    }
    desc_free(&d);
    if (bench)
        return bench_rc ? bench_rc : g_failed.load() ? 1 : 0; // stdout: the bench lines only
    printf("emit: %d written, %d skipped, %d failed\n", g_written.load(), g_skipped.load(),
           g_failed.load());
    fflush(stdout);
    return g_skipped.load() || g_failed.load() ? 1 : 0;
}
