// SPDX-License-Identifier: GPL-2.0
//
// emit <file.events>: ehconf's emitter for microsoft/LinuxTracepoints' C++ builder,
// EventHeaderDynamic.h (ehd::Provider, ehd::EventSet, ehd::EventBuilder).
//
// Reads a case description (Documentation/case-descriptions.md) and writes every event
// of it through that API, with the steps it names (register, unregister, threads, fork).
// Prints one line per `event` statement, numbered from 1 in file order:
//   event <n> written
//   event <n> skipped <reason>       the API cannot express it: nothing was written
//   event <n> failed <call> returned <errno name>
// then `emit: N written, N skipped, N failed`. Exit status 0 when every event was
// written, 1 otherwise, 2 for a description it cannot parse (`file:line: reason`).
// `emit --types` prints its type table (name, encoding, format). `emit --contract` answers
// the line protocol of Documentation/impl-contract.md (its section below says how).
//
// Each field type maps to the builder call that gives the same encoding and format
// (the table below, checked against descriptions/types.txt by
// tests/harness/test_impl_lttp_cpp.py). An array of structs has no Add* call: it goes
// through the RawAddMeta*/RawAddData* methods the header documents for it.
// Steps: `register` constructs an ehd::Provider(name, group) (the constructor opens it;
// each event's level and keyword get their EventSet from RegisterSet), `unregister` calls
// Unregister() and destroys it (the API has no way back: registering again is a new
// Provider). An event is bound to the last `provider` statement before it in the file.
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
#include <iostream>
#include <memory>
#include <mutex>
#include <new>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

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
    ENC_LAST = 13,
};

enum Format : uint8_t {
    FMT_DEFAULT = 0,
    FMT_SIGNED = 2,
    FMT_HEX = 3,
    FMT_ERRNO = 4,
    FMT_PID = 5,
    FMT_TIME = 6,
    FMT_BOOLEAN = 7,
    FMT_FLOAT = 8,
    FMT_HEX_BYTES = 9,
    FMT_STRING8 = 10,
    FMT_STRING_UTF = 11,
    FMT_XML = 13,
    FMT_JSON = 14,
    FMT_UUID = 15,
    FMT_PORT = 16,
    FMT_IP = 17,
};

struct TypeRow {
    char const *name;
    uint8_t encoding;
    uint8_t format;
};

// write_event!'s field types (Documentation/field-types.txt): encoding and format.
// A pointer-sized type is value64 (x86_64). `_slice` and `_array` suffixes add the array.
TypeRow const TYPES[] = {
    {"binary", ENC_STRING8, FMT_HEX_BYTES},
    {"binaryc", ENC_STRING8, FMT_HEX_BYTES},
    {"bool32", ENC_VALUE32, FMT_BOOLEAN},
    {"bool8", ENC_VALUE8, FMT_BOOLEAN},
    {"char16", ENC_VALUE16, FMT_STRING_UTF},
    {"char8_cp1252", ENC_VALUE8, FMT_STRING8},
    {"codepointer", ENC_VALUE64, FMT_HEX},
    {"cstr16", ENC_ZSTRING16, FMT_DEFAULT},
    {"cstr16_json", ENC_ZSTRING16, FMT_JSON},
    {"cstr16_xml", ENC_ZSTRING16, FMT_XML},
    {"cstr32", ENC_ZSTRING32, FMT_DEFAULT},
    {"cstr32_json", ENC_ZSTRING32, FMT_JSON},
    {"cstr32_xml", ENC_ZSTRING32, FMT_XML},
    {"cstr8", ENC_ZSTRING8, FMT_DEFAULT},
    {"cstr8_cp1252", ENC_ZSTRING8, FMT_STRING8},
    {"cstr8_json", ENC_ZSTRING8, FMT_JSON},
    {"cstr8_xml", ENC_ZSTRING8, FMT_XML},
    {"errno", ENC_VALUE32, FMT_ERRNO},
    {"f32", ENC_VALUE32, FMT_FLOAT},
    {"f64", ENC_VALUE64, FMT_FLOAT},
    {"guid", ENC_VALUE128, FMT_UUID},
    {"hresult", ENC_VALUE32, FMT_HEX},
    {"i16", ENC_VALUE16, FMT_SIGNED},
    {"i16_hex", ENC_VALUE16, FMT_HEX},
    {"i32", ENC_VALUE32, FMT_SIGNED},
    {"i32_hex", ENC_VALUE32, FMT_HEX},
    {"i64", ENC_VALUE64, FMT_SIGNED},
    {"i64_hex", ENC_VALUE64, FMT_HEX},
    {"i8", ENC_VALUE8, FMT_SIGNED},
    {"i8_hex", ENC_VALUE8, FMT_HEX},
    {"ipv4", ENC_VALUE32, FMT_IP},
    {"ipv6", ENC_VALUE128, FMT_IP},
    {"ipv6c", ENC_VALUE128, FMT_IP},
    {"isize", ENC_VALUE64, FMT_SIGNED},
    {"isize_hex", ENC_VALUE64, FMT_HEX},
    {"pid", ENC_VALUE32, FMT_PID},
    {"pointer", ENC_VALUE64, FMT_HEX},
    {"port", ENC_VALUE16, FMT_PORT},
    {"socketaddress", ENC_STRING8, FMT_HEX_BYTES},
    {"socketaddressc", ENC_STRING8, FMT_HEX_BYTES},
    {"str16", ENC_STRING16, FMT_DEFAULT},
    {"str16_json", ENC_STRING16, FMT_JSON},
    {"str16_xml", ENC_STRING16, FMT_XML},
    {"str32", ENC_STRING32, FMT_DEFAULT},
    {"str32_json", ENC_STRING32, FMT_JSON},
    {"str32_xml", ENC_STRING32, FMT_XML},
    {"str8", ENC_STRING8, FMT_DEFAULT},
    {"str8_cp1252", ENC_STRING8, FMT_STRING8},
    {"str8_json", ENC_STRING8, FMT_JSON},
    {"str8_xml", ENC_STRING8, FMT_XML},
    {"systemtime", ENC_VALUE64, FMT_TIME},
    {"tid", ENC_VALUE32, FMT_PID},
    {"time32", ENC_VALUE32, FMT_TIME},
    {"time64", ENC_VALUE64, FMT_TIME},
    {"u16", ENC_VALUE16, FMT_DEFAULT},
    {"u16_hex", ENC_VALUE16, FMT_HEX},
    {"u32", ENC_VALUE32, FMT_DEFAULT},
    {"u32_hex", ENC_VALUE32, FMT_HEX},
    {"u64", ENC_VALUE64, FMT_DEFAULT},
    {"u64_hex", ENC_VALUE64, FMT_HEX},
    {"u8", ENC_VALUE8, FMT_DEFAULT},
    {"u8_hex", ENC_VALUE8, FMT_HEX},
    {"usize", ENC_VALUE64, FMT_DEFAULT},
    {"usize_hex", ENC_VALUE64, FMT_HEX},
};

// Bytes of one element (value) or one code unit (string) of a base encoding.
size_t unit_size(uint8_t enc)
{
    switch (enc) {
    case ENC_VALUE8: return 1;
    case ENC_VALUE16: return 2;
    case ENC_VALUE32: return 4;
    case ENC_VALUE64: return 8;
    case ENC_VALUE128: return 16;
    case ENC_ZSTRING8:
    case ENC_STRING8:
    case ENC_BINARY8: return 1;
    case ENC_ZSTRING16:
    case ENC_STRING16: return 2;
    case ENC_ZSTRING32:
    case ENC_STRING32: return 4;
    default: return 0;
    }
}

bool is_value(uint8_t enc)
{
    return enc >= ENC_VALUE8 && enc <= ENC_VALUE128;
}

struct Field {
    int line = 0;
    std::string name;
    uint8_t encoding = 0; // base encoding, without array flags
    uint8_t format = 0;
    bool varray = false;
    bool carray = false;
    uint16_t tag = 0;
    std::vector<std::string> values;          // one per element (a scalar has one)
    std::vector<Field> members;               // struct: members; struct_slice: their shape
    std::vector<std::vector<Field>> elements; // struct_slice: the elements' members
};

struct Event {
    int ordinal = 0;
    int line = 0;
    std::string name;
    uint8_t level = 0;
    uint64_t keyword = 0;
    uint8_t opcode = 0;
    uint16_t tag = 0;
    uint16_t id = 0;
    uint8_t version = 0;
    bool has_activity = false;
    bool has_related = false;
    uint8_t activity[16] = {};
    uint8_t related[16] = {};
    int provider = -1; // index of the parser's providers: the last `provider` before it
    std::vector<Field> fields;
};

struct Step {
    enum Kind { REGISTER, UNREGISTER, EVENT, THREADS, FORK } kind = EVENT;
    int line = 0;
    int provider = -1;                     // REGISTER, UNREGISTER
    Event event;                           // EVENT
    std::vector<std::vector<Step>> blocks; // THREADS: one per thread; FORK: child, parent
};

// ---- the parser ------------------------------------------------------------------------

struct ParseError {
    int line;
    std::string why;
};

class Parser
{
  public:
    explicit Parser(std::string const &text)
    {
        size_t start = 0;
        while (start <= text.size()) {
            size_t nl = text.find('\n', start);
            if (nl == std::string::npos)
                nl = text.size();
            lines_.push_back(text.substr(start, nl - start));
            start = nl + 1;
        }
    }

    std::vector<Step> parse()
    {
        std::vector<std::string> w;
        if (!next(w) || w[0] != "case" || w.size() != 2)
            throw ParseError{line_, "the first statement must be `case <name>`"};
        std::vector<Step> steps;
        parse_steps(steps, 0, false);
        return steps;
    }

    // Every (name, group) a `provider` statement names, in order of appearance.
    std::vector<std::pair<std::string, std::string>> providers;

  private:
    std::vector<std::string> lines_;
    size_t index_ = 0;
    int line_ = 0; // 1-based line of the statement last read
    int ordinal_ = 0;
    int nesting_ = 0;
    int current_ = -1; // the provider of the statements that follow (lexical, as written)
    static int const MAX_NESTING = 200; // a guard for the recursion, far above any case

    struct Nest {
        Parser &p;
        explicit Nest(Parser &parser) : p(parser)
        {
            if (++p.nesting_ > MAX_NESTING)
                p.fail("blocks nested deeper than " + std::to_string(MAX_NESTING));
        }
        ~Nest()
        {
            --p.nesting_;
        }
    };

    // The next statement's words (comments and blank lines skipped); false at the end.
    bool next(std::vector<std::string> &words)
    {
        while (index_ < lines_.size()) {
            std::string const &s = lines_[index_++];
            line_ = static_cast<int>(index_);
            words.clear();
            size_t i = 0;
            while (i < s.size()) {
                while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r'))
                    i++;
                size_t j = i;
                while (j < s.size() && s[j] != ' ' && s[j] != '\t' && s[j] != '\r')
                    j++;
                if (j > i)
                    words.push_back(s.substr(i, j - i));
                i = j;
            }
            if (!words.empty() && words[0][0] != '#')
                return true;
        }
        line_ = static_cast<int>(lines_.size());
        return false;
    }

    [[noreturn]] void fail(std::string const &why)
    {
        throw ParseError{line_, why};
    }

    static int hexval(char c)
    {
        if (c >= '0' && c <= '9')
            return c - '0';
        if (c >= 'a' && c <= 'f')
            return c - 'a' + 10;
        if (c >= 'A' && c <= 'F')
            return c - 'A' + 10;
        return -1;
    }

    // A name token: %XX escapes; "-" is the empty name; a NUL byte is not a name's.
    std::string unescape(std::string const &s)
    {
        std::string out;
        if (s == "-")
            return out;
        for (size_t i = 0; i < s.size(); i++) {
            if (s[i] != '%') {
                out += s[i];
                continue;
            }
            if (i + 2 >= s.size())
                fail("`%` without two hex digits in " + s);
            int hi = hexval(s[i + 1]);
            int lo = hexval(s[i + 2]);
            if (hi < 0 || lo < 0)
                fail("`%` without two hex digits in " + s);
            if (hi == 0 && lo == 0)
                fail("a name cannot hold a NUL byte (%00)");
            out += static_cast<char>(hi * 16 + lo);
            i += 2;
        }
        return out;
    }

    std::string hex_bytes(std::string const &s)
    {
        if (s.size() % 2)
            fail("odd number of hex digits: " + s.substr(0, 40));
        std::string out(s.size() / 2, '\0');
        for (size_t i = 0; i < out.size(); i++) {
            int hi = hexval(s[2 * i]), lo = hexval(s[2 * i + 1]);
            if (hi < 0 || lo < 0)
                fail("not hex: " + s.substr(0, 40));
            out[i] = static_cast<char>(hi * 16 + lo);
        }
        return out;
    }

    uint64_t number(std::string const &key, std::string const &text, uint64_t max, bool hex)
    {
        std::string digits = text;
        if (hex) {
            if (digits.size() < 3 || digits[0] != '0' || (digits[1] != 'x' && digits[1] != 'X'))
                fail(key + "= needs 0x<hex>, not " + text);
            digits = digits.substr(2);
        }
        if (digits.empty() || digits.size() > 20)
            fail("bad number " + key + "=" + text);
        uint64_t v = 0;
        for (char c : digits) {
            int d = hex ? hexval(c) : (c >= '0' && c <= '9' ? c - '0' : -1);
            uint64_t base = hex ? 16 : 10;
            if (d < 0 || v > (UINT64_MAX - static_cast<uint64_t>(d)) / base)
                fail("bad number " + key + "=" + text);
            v = v * base + static_cast<uint64_t>(d);
        }
        if (v > max)
            fail(key + "=" + text + " is out of range (at most " + std::to_string(max) + ")");
        return v;
    }

    void guid(std::string const &key, std::string const &text, uint8_t *out)
    {
        if (text.size() != 32)
            fail(key + "= needs 32 hex digits");
        std::string b = hex_bytes(text);
        memcpy(out, b.data(), 16);
    }

    // `tag=0x<hex>` as the only optional word of a field statement.
    uint16_t field_tag(std::vector<std::string> const &w, size_t first)
    {
        uint16_t tag = 0;
        for (size_t i = first; i < w.size(); i++) {
            if (w[i].compare(0, 4, "tag=") != 0)
                fail("unexpected `" + w[i] + "`");
            tag = static_cast<uint16_t>(number("tag", w[i].substr(4), 0xFFFF, true));
        }
        return tag;
    }

    // Statements up to the `end` of the block (in_block), or the end of the file. In a
    // fork's child block (parent != nullptr), `parent` also ends it and sets *parent.
    void parse_steps(std::vector<Step> &steps, int depth, bool in_block, bool *parent = nullptr)
    {
        Nest nest(*this);
        std::vector<std::string> w;
        int opened = line_;
        while (next(w)) {
            std::string const &s = w[0];
            Step st;
            st.line = line_;
            if (s == "end" || s == "parent") {
                if (w.size() != 1 || !in_block || (s == "parent" && !parent))
                    fail(s == "end" ? "`end` without a block"
                                    : "`parent` belongs inside a `fork` block, once");
                if (parent)
                    *parent = s == "parent";
                return;
            } else if (s == "needs") {
                if (depth)
                    fail("`needs` inside a block");
                continue;
            } else if (s == "case") {
                fail("`case` again");
            } else if (s == "provider") {
                if (w.size() < 2 || w.size() > 3)
                    fail("expected `provider <name> [group=<group>]`");
                std::pair<std::string, std::string> key(unescape(w[1]), "");
                if (w.size() == 3) {
                    if (w[2].compare(0, 6, "group=") != 0)
                        fail("unexpected `" + w[2] + "`");
                    key.second = unescape(w[2].substr(6));
                }
                size_t i = 0;
                while (i < providers.size() && providers[i] != key)
                    i++;
                if (i == providers.size())
                    providers.push_back(key);
                current_ = static_cast<int>(i);
                continue;
            } else if (s == "register" || s == "unregister") {
                if (w.size() != 1)
                    fail("`" + s + "` takes nothing");
                if (current_ < 0)
                    fail("`" + s + "` before any `provider`");
                st.kind = s == "register" ? Step::REGISTER : Step::UNREGISTER;
                st.provider = current_;
            } else if (s == "event") {
                if (current_ < 0)
                    fail("`event` before any `provider`");
                st.kind = Step::EVENT;
                st.event.provider = current_;
                parse_event(w, st.event);
            } else if (s == "threads") {
                if (w.size() != 1)
                    fail("`threads` takes nothing");
                st.kind = Step::THREADS;
                std::vector<std::string> t;
                int threads_line = line_;
                for (;;) {
                    if (!next(t))
                        throw ParseError{threads_line, "`threads` without `end`"};
                    if (t[0] == "end" && t.size() == 1)
                        break;
                    if (t[0] != "thread" || t.size() != 1)
                        fail("expected `thread` or `end` inside `threads`");
                    st.blocks.emplace_back();
                    parse_steps(st.blocks.back(), depth + 1, true);
                }
            } else if (s == "fork") {
                if (w.size() != 1)
                    fail("`fork` takes nothing");
                // blocks[0]: the child's events; blocks[1]: the parent's meanwhile
                // (after `parent`), before it waits for the child.
                st.kind = Step::FORK;
                st.blocks.resize(2);
                bool parent = false;
                parse_steps(st.blocks[0], depth + 1, true, &parent);
                if (parent)
                    parse_steps(st.blocks[1], depth + 1, true);
            } else {
                fail("unknown statement `" + s + "`");
            }
            steps.push_back(std::move(st));
        }
        if (in_block)
            throw ParseError{opened, "block without `end`"};
    }

    void parse_event(std::vector<std::string> const &w, Event &ev)
    {
        if (w.size() < 2)
            fail("expected `event <name> level=<n> keyword=0x<hex> ...`");
        ev.line = line_;
        ev.ordinal = ++ordinal_;
        ev.name = unescape(w[1]);
        bool level = false, keyword = false;
        for (size_t i = 2; i < w.size(); i++) {
            size_t eq = w[i].find('=');
            if (eq == std::string::npos)
                fail("unexpected `" + w[i] + "`");
            std::string key = w[i].substr(0, eq), v = w[i].substr(eq + 1);
            if (key == "level") {
                ev.level = static_cast<uint8_t>(number(key, v, 255, false));
                level = true;
            } else if (key == "keyword") {
                ev.keyword = number(key, v, UINT64_MAX, true);
                keyword = true;
            } else if (key == "opcode") {
                ev.opcode = static_cast<uint8_t>(number(key, v, 255, false));
            } else if (key == "tag") {
                ev.tag = static_cast<uint16_t>(number(key, v, 0xFFFF, true));
            } else if (key == "id") {
                ev.id = static_cast<uint16_t>(number(key, v, 0xFFFF, false));
            } else if (key == "version") {
                ev.version = static_cast<uint8_t>(number(key, v, 255, false));
            } else if (key == "activity") {
                guid(key, v, ev.activity);
                ev.has_activity = true;
            } else if (key == "related") {
                guid(key, v, ev.related);
                ev.has_related = true;
            } else if (key != "needs") {
                fail("unknown event option `" + key + "`");
            }
        }
        if (!level || !keyword)
            fail("an event needs level= and keyword=");
        parse_fields(ev.fields, "event");
    }

    // Members up to the `end` that closes `what`.
    void parse_fields(std::vector<Field> &out, char const *what)
    {
        Nest nest(*this);
        int opened = line_;
        std::vector<std::string> w;
        for (;;) {
            if (!next(w))
                throw ParseError{opened, std::string(what) + " without `end`"};
            if (w[0] == "end") {
                if (w.size() != 1)
                    fail("`end` takes nothing");
                return;
            }
            Field f;
            f.line = line_;
            if (w[0] == "struct") {
                if (w.size() < 2)
                    fail("expected `struct <name> [tag=0x<hex>]`");
                f.name = unescape(w[1]);
                f.encoding = ENC_STRUCT;
                f.tag = field_tag(w, 2);
                parse_fields(f.members, "struct");
            } else if (w[0] == "struct_slice") {
                if (w.size() < 3)
                    fail("expected `struct_slice <name> <count> [tag=0x<hex>]`");
                f.name = unescape(w[1]);
                f.encoding = ENC_STRUCT;
                f.varray = true;
                uint64_t count = number("count", w[2], 65535, false);
                f.tag = field_tag(w, 3);
                parse_struct_slice(f, count);
            } else if (w[0] == "element") {
                fail("`element` outside `struct_slice`");
            } else {
                parse_value_field(w, f);
            }
            out.push_back(std::move(f));
        }
    }

    void parse_struct_slice(Field &f, uint64_t count)
    {
        int opened = line_;
        std::vector<std::string> w;
        std::vector<std::vector<Field>> blocks;
        for (;;) {
            if (!next(w))
                throw ParseError{opened, "struct_slice without `end`"};
            if (w[0] == "end" && w.size() == 1)
                break;
            if (w[0] != "element" || w.size() != 1)
                fail("expected `element` or `end` in struct_slice");
            blocks.emplace_back();
            parse_fields(blocks.back(), "element");
        }
        size_t want = count ? count : 1;
        if (blocks.size() != want)
            throw ParseError{opened, "struct_slice says " + std::to_string(count) +
                                         " element(s), has " + std::to_string(blocks.size()) +
                                         " `element` block(s)"};
        for (size_t i = 1; i < blocks.size(); i++)
            if (!same_shape(blocks[0], blocks[i]))
                throw ParseError{opened,
                                 "element " + std::to_string(i + 1) +
                                     " of the struct_slice has other members than the first"};
        f.members = blocks[0];
        if (count)
            f.elements = std::move(blocks);
    }

    static bool same_shape(std::vector<Field> const &a, std::vector<Field> const &b)
    {
        if (a.size() != b.size())
            return false;
        for (size_t i = 0; i < a.size(); i++) {
            Field const &x = a[i];
            Field const &y = b[i];
            if (x.name != y.name || x.encoding != y.encoding || x.format != y.format ||
                x.varray != y.varray || x.carray != y.carray || x.tag != y.tag ||
                !same_shape(x.members, y.members))
                return false;
            if (x.carray && x.values.size() != y.values.size())
                return false;
        }
        return true;
    }

    void parse_value_field(std::vector<std::string> const &w, Field &f)
    {
        if (w.size() < 3)
            fail("expected `<type> <name> <value> [tag=0x<hex>]`");
        std::string const &type = w[0];
        bool found = false;
        if (type.compare(0, 4, "raw:") == 0) {
            size_t colon = type.find(':', 4);
            if (colon == std::string::npos)
                fail("expected raw:<enc hex>:<format hex>");
            uint64_t enc = number("raw encoding", "0x" + type.substr(4, colon - 4), 0xFF, true);
            uint64_t fmt = number("raw format", "0x" + type.substr(colon + 1), 0xFF, true);
            f.encoding = static_cast<uint8_t>(enc & 0x1F);
            f.carray = (enc & 0x20) != 0;
            f.varray = (enc & 0x40) != 0;
            f.format = static_cast<uint8_t>(fmt & 0x7F);
            if (f.encoding < ENC_VALUE8 || f.encoding > ENC_LAST)
                fail("raw encoding " + type + ": not a value or string encoding");
            if (f.carray && f.varray)
                fail("raw encoding " + type + ": both array flags");
            found = true;
        } else {
            std::string base = type;
            for (char const *suffix : {"_slice", "_array"}) {
                size_t n = strlen(suffix);
                if (base.size() > n && base.compare(base.size() - n, n, suffix) == 0) {
                    std::string stripped = base.substr(0, base.size() - n);
                    for (TypeRow const &row : TYPES)
                        if (stripped == row.name) {
                            base = stripped;
                            (suffix[1] == 's' ? f.varray : f.carray) = true;
                            break;
                        }
                }
            }
            for (TypeRow const &row : TYPES)
                if (base == row.name) {
                    f.encoding = row.encoding;
                    f.format = row.format;
                    found = true;
                    break;
                }
            // Arrays exist of value types only (Documentation/case-descriptions.md).
            if (found && (f.varray || f.carray) && !is_value(f.encoding))
                fail("`" + type + "`: arrays exist of value types only");
        }
        if (!found)
            fail("unknown field type `" + type + "`");
        f.name = unescape(w[1]);
        f.tag = field_tag(w, 3);
        std::string const &v = w[2];
        bool array = f.varray || f.carray;
        size_t unit = unit_size(f.encoding);
        if (v == "-") {
            if (!array) {
                if (is_value(f.encoding))
                    fail("an empty value for the fixed-size type " + type);
                f.values.emplace_back();
            }
        } else {
            size_t start = 0;
            for (;;) {
                size_t comma = v.find(',', start);
                std::string item =
                    v.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
                f.values.push_back(item == "-" ? std::string() : hex_bytes(item));
                if (comma == std::string::npos)
                    break;
                start = comma + 1;
            }
            if (!array && f.values.size() != 1)
                fail("several values for the scalar type " + type);
        }
        for (std::string const &item : f.values) {
            if (is_value(f.encoding) ? item.size() != unit : item.size() % unit != 0)
                fail(type + " " + w[1] + ": a value of " + std::to_string(item.size()) +
                     " bytes does not fit " + std::to_string(unit) + "-byte units");
            if (f.encoding >= ENC_ZSTRING8 && f.encoding <= ENC_ZSTRING32)
                for (size_t i = 0; i < item.size(); i += unit)
                    if (item.find_first_not_of('\0', i) >= i + unit)
                        fail("a zero-terminated string cannot hold a 0 code unit");
            if (!is_value(f.encoding) && item.size() / unit > 65535)
                fail("a string of more than 65535 code units");
        }
        if (f.carray && f.values.empty())
            fail("a constant-length array needs at least one element");
        if (f.values.size() > 65535)
            fail("more than 65535 elements");
    }
};

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
std::string fields_problem(std::vector<Field> const &fields)
{
    for (Field const &f : fields) {
        if (f.carray)
            return "constant-length array: EventHeaderDynamic.h has none (Add*Range write "
                   "variable-length arrays, RawAddMetaScalar takes no array flag): field " +
                   printable(f.name);
        if (f.encoding == ENC_STRUCT) {
            if (f.members.empty())
                return "empty struct: AddStruct requires 1 to 127 fields: field " +
                       printable(f.name);
            if (f.members.size() > 127)
                return "struct of more than 127 fields: AddStruct takes 1 to 127 (uint8_t "
                       "structFieldCount < 128): field " +
                       printable(f.name);
            std::string p = fields_problem(f.members);
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

template <class T> void add_value(ehd::EventBuilder &eb, Field const &f, event_field_format fmt)
{
    std::vector<T> v = as_values<T>(f.values);
    if (f.varray)
        eb.AddValueRange(f.name, v.data(), v.data() + v.size(), fmt, f.tag);
    else
        eb.AddValue(f.name, v[0], fmt, f.tag);
}

template <class C> void add_counted(ehd::EventBuilder &eb, Field const &f, event_field_format fmt)
{
    std::vector<std::basic_string<C>> v = as_strings<C>(f.values);
    if (f.varray)
        eb.AddStringRange<C>(f.name, v.begin(), v.end(), fmt, f.tag);
    else
        eb.AddString<C>(f.name, std::basic_string_view<C>(v[0]), fmt, f.tag);
}

template <class C> void add_zstring(ehd::EventBuilder &eb, Field const &f, event_field_format fmt)
{
    std::vector<std::basic_string<C>> v = as_strings<C>(f.values);
    if (f.varray)
        eb.AddNulTerminatedStringRange<C>(f.name, v.begin(), v.end(), fmt, f.tag);
    else
        eb.AddNulTerminatedString<C>(f.name, std::basic_string_view<C>(v[0]), fmt, f.tag);
}

void add_binary(ehd::EventBuilder &eb, Field const &f, event_field_format fmt)
{
    std::vector<std::string> const &v = f.values;
    if (f.varray)
        eb.AddBinaryRange<char>(f.name, v.begin(), v.end(), fmt, f.tag);
    else
        eb.AddBinary<char>(f.name, std::string_view(v[0]), fmt, f.tag);
}

void raw_meta(ehd::EventBuilder &eb, Field const &f);
void raw_data(ehd::EventBuilder &eb, Field const &f);

void add_field(ehd::EventBuilder &eb, Field const &f)
{
    auto const fmt = static_cast<event_field_format>(f.format);
    switch (f.encoding) {
    case ENC_STRUCT:
        if (f.varray) {
            // An array of structs: no Add* call exists; the header's RawAddMeta*/RawAddData*
            // methods are documented for exactly this ("e.g. array-of-struct").
            raw_meta(eb, f);
            raw_data(eb, f);
        } else {
            eb.AddStruct(f.name, static_cast<uint8_t>(f.members.size()), f.tag);
            for (Field const &m : f.members)
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

void raw_meta(ehd::EventBuilder &eb, Field const &f)
{
    auto const enc = static_cast<event_field_encoding>(f.encoding);
    auto const fmt =
        static_cast<event_field_format>(f.encoding == ENC_STRUCT ? f.members.size() : f.format);
    if (f.varray)
        eb.RawAddMetaVcount(f.name, enc, fmt, f.tag);
    else
        eb.RawAddMetaScalar(f.name, enc, fmt, f.tag);
    if (f.encoding == ENC_STRUCT)
        for (Field const &m : f.members)
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

void raw_item(ehd::EventBuilder &eb, Field const &f, std::string const &bytes)
{
    switch (f.encoding) {
    case ENC_ZSTRING8:
    case ENC_ZSTRING16:
    case ENC_ZSTRING32:
        raw_bytes(eb, bytes);
        raw_bytes(eb, std::string(unit_size(f.encoding), '\0'));
        break;
    case ENC_STRING8:
    case ENC_STRING16:
    case ENC_STRING32:
    case ENC_BINARY8:
        eb.RawAddDataValue(static_cast<uint16_t>(bytes.size() / unit_size(f.encoding)));
        raw_bytes(eb, bytes);
        break;
    default: raw_bytes(eb, bytes); break;
    }
}

void raw_data(ehd::EventBuilder &eb, Field const &f)
{
    if (f.encoding == ENC_STRUCT) {
        if (f.varray) {
            eb.RawAddDataValue(static_cast<uint16_t>(f.elements.size()));
            for (std::vector<Field> const &element : f.elements)
                for (Field const &m : element)
                    raw_data(eb, m);
        } else {
            for (Field const &m : f.members)
                raw_data(eb, m);
        }
        return;
    }
    if (f.varray)
        eb.RawAddDataValue(static_cast<uint16_t>(f.values.size()));
    for (std::string const &item : f.values)
        raw_item(eb, f, item);
}

// ---- steps -----------------------------------------------------------------------------

void write_event(Event const &ev)
{
    ProviderState *ps = g_providers[static_cast<size_t>(ev.provider)].get();
    if (!ps->unusable.empty()) {
        report(ev.ordinal, "skipped", "provider " + printable(ps->name) + ": " + ps->unusable);
        return;
    }
    std::string problem = fields_problem(ev.fields);
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
    for (Field const &f : ev.fields)
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

void run_steps(std::vector<Step> const &steps);

void collect_events(std::vector<Step> const &steps, std::vector<int> &out)
{
    for (Step const &s : steps) {
        if (s.kind == Step::EVENT)
            out.push_back(s.event.ordinal);
        for (auto const &b : s.blocks)
            collect_events(b, out);
    }
}

void fail_all(std::vector<Step> const &steps, std::string const &why)
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
void run_fork(Step const &st)
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
                st.line, status);
        g_failed++;
    }
}

void run_steps(std::vector<Step> const &steps)
{
    for (Step const &st : steps) {
        switch (st.kind) {
        case Step::REGISTER: {
            std::lock_guard<std::mutex> lock(g_provider);
            ProviderState *ps = g_providers[static_cast<size_t>(st.provider)].get();
            if (ps->unusable.empty() && !ps->provider) {
                ps->provider = std::make_unique<ehd::Provider>(ps->name, ps->group);
                if (ps->provider->Errno())
                    fprintf(stderr, "emit: line %d: ehd::Provider(%s) returned %s\n", st.line,
                            printable(ps->name).c_str(), errno_name(ps->provider->Errno()));
            }
            break;
        }
        case Step::UNREGISTER: {
            // Provider has Unregister() but no way back: registering again is a new Provider.
            std::lock_guard<std::mutex> lock(g_provider);
            ProviderState *ps = g_providers[static_cast<size_t>(st.provider)].get();
            if (ps->provider) {
                ps->provider->Unregister();
                ps->provider.reset();
            }
            break;
        }
        case Step::EVENT: write_event(st.event); break;
        case Step::THREADS: {
            std::vector<std::thread> threads;
            for (auto const &block : st.blocks) {
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
        case Step::FORK: run_fork(st); break;
        }
    }
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
// A bound on what one command may allocate, far above the 64 KB an event can carry.
unsigned long long const CONTRACT_MAX_PAD = 1u << 20;

std::unique_ptr<ehd::Provider> g_contract;
std::shared_ptr<ehd::EventSet const> g_contract_set;

std::string contract_error(int err)
{
    return "error " + std::to_string(err);
}

std::string contract_register()
{
    g_contract_set.reset();
    g_contract.reset(new (std::nothrow) ehd::Provider("EhconfContract")); // the old one unregisters
    if (g_contract)
        g_contract_set = g_contract->RegisterSet(CONTRACT_LEVEL, CONTRACT_KEYWORD);
    if (!g_contract_set)
        return contract_error(ENOMEM); // RegisterSet's nullptr means out of memory
    // The set's Errno() carries the constructor's (eventheader_open_provider) as well.
    return g_contract_set->Errno() ? contract_error(g_contract_set->Errno()) : "ok";
}

int contract_enabled()
{
    return ehd::Enabled(g_contract_set) ? 1 : 0;
}

int contract_write(uint32_t seq, size_t pad)
{
    ehd::EventSet const placeholder;
    ehd::EventBuilder eb;
    eb.Reset("Contract");
    eb.AddValue("seq", seq, event_field_format_default);
    eb.AddString<char>("pad", std::string(pad, 'p'), event_field_format_default);
    return eb.Write(g_contract_set ? *g_contract_set : placeholder);
}

// The child checks and writes with what it inherited, reports both through a pipe and
// _exits (no destructor may unregister the parent's provider from the child).
std::string contract_fork(uint32_t seq)
{
    int fds[2];
    if (pipe(fds) != 0)
        return contract_error(errno);
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) {
        int err = errno;
        close(fds[0]);
        close(fds[1]);
        return contract_error(err);
    }
    if (pid == 0) {
        close(fds[0]);
        int const both[2] = {contract_enabled(), contract_write(seq, 0)};
        _exit(write(fds[1], both, sizeof(both)) == static_cast<ssize_t>(sizeof(both)) ? 0 : 1);
    }
    close(fds[1]);
    int both[2] = {0, 0};
    size_t got = read_full(fds[0], both, sizeof(both));
    close(fds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (got != sizeof(both))
        return WIFSIGNALED(status) ? "error child signal " + std::to_string(WTERMSIG(status))
                                   : "error child exit " + std::to_string(WEXITSTATUS(status));
    return "child " + std::to_string(both[0]) + " " + std::to_string(both[1]);
}

std::string contract_thread_register()
{
    std::string answer;
    try {
        std::thread t([&answer] { answer = contract_register(); });
        t.join();
    } catch (std::system_error const &e) {
        return contract_error(e.code().value()); // pthread_create's errno
    }
    return answer;
}

// A decimal number of at most `max`: digits only, no sign.
bool contract_number(std::string const &s, unsigned long long max, unsigned long long &out)
{
    out = 0;
    for (char c : s) {
        if (c < '0' || c > '9' || out > (max - static_cast<unsigned>(c - '0')) / 10)
            return false;
        out = out * 10 + static_cast<unsigned>(c - '0');
    }
    return !s.empty();
}

std::string contract_command(std::vector<std::string> const &w)
{
    std::string const cmd = w.empty() ? "" : w[0];
    size_t const n = w.size();
    unsigned long long seq = 0, pad = 0;
    if (cmd == "register" && n == 1)
        return contract_register();
    if (cmd == "unregister" && n == 1) {
        if (g_contract)
            g_contract->Unregister(); // returns nothing: "does nothing" when not registered
        return "ok";
    }
    if (cmd == "enabled" && n == 1)
        return std::to_string(contract_enabled());
    if (cmd == "write" && n == 3 && contract_number(w[1], UINT32_MAX, seq) &&
        contract_number(w[2], CONTRACT_MAX_PAD, pad))
        return std::to_string(contract_write(static_cast<uint32_t>(seq), pad));
    if (cmd == "fork" && n == 2 && contract_number(w[1], UINT32_MAX, seq))
        return contract_fork(static_cast<uint32_t>(seq));
    if (cmd == "thread-register" && n == 1)
        return contract_thread_register();
    return "error usage";
}

int contract_main()
{
    std::string line;
    while (std::getline(std::cin, line)) {
        std::vector<std::string> words;
        std::istringstream in(line);
        for (std::string word; in >> word;)
            words.push_back(word);
        if (words.size() == 1 && words[0] == "quit")
            break;
        printf("%s\n", contract_command(words).c_str());
        fflush(stdout);
    }
    return 0;
}

} // namespace

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: emit <file.events> | emit --types | emit --contract\n");
        return 2;
    }
    if (strcmp(argv[1], "--contract") == 0)
        return contract_main();
    if (strcmp(argv[1], "--types") == 0) {
        // The type table, for tests/harness/test_impl_lttp_cpp.py to hold against
        // descriptions/types.txt: name, encoding and format in hex.
        for (TypeRow const &row : TYPES)
            printf("%s 0x%02x 0x%02x\n", row.name, row.encoding, row.format);
        return 0;
    }
    char const *path = argv[1];
    std::string text;
    {
        FILE *f = fopen(path, "rb");
        if (!f) {
            fprintf(stderr, "%s: %s\n", path, strerror(errno));
            return 2;
        }
        char buf[65536];
        size_t n;
        while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
            text.append(buf, n);
        bool bad = ferror(f) != 0;
        fclose(f);
        if (bad) {
            fprintf(stderr, "%s: read error\n", path);
            return 2;
        }
    }
    std::vector<Step> steps;
    try {
        Parser parser(text);
        steps = parser.parse();
        for (auto const &key : parser.providers) {
            g_providers.push_back(std::make_unique<ProviderState>());
            g_providers.back()->name = key.first;
            g_providers.back()->group = key.second;
            g_providers.back()->unusable = provider_problem(key.first, key.second);
        }
    } catch (ParseError const &e) {
        fprintf(stderr, "%s:%d: %s\n", path, e.line, e.why.c_str());
        return 2;
    } catch (std::exception const &e) {
        fprintf(stderr, "%s: %s\n", path, e.what());
        return 2;
    }
    try {
        run_steps(steps);
    } catch (std::exception const &e) {
        fprintf(stderr, "emit: %s\n", e.what());
        g_failed++;
    }
    {
        std::lock_guard<std::mutex> lock(g_provider);
        g_providers.clear(); // unregisters what is still registered
    }
    printf("emit: %d written, %d skipped, %d failed\n", g_written.load(), g_skipped.load(),
           g_failed.load());
    fflush(stdout);
    return g_skipped.load() || g_failed.load() ? 1 : 0;
}
