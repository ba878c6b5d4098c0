/* SPDX-License-Identifier: MIT */
/*
 * etwcapture: runs one ehconf case under its own ETW session and prints the captured
 * TraceLogging events as the same JSON lines as `ehdecode --golden`.
 *
 * The Windows runner (scripts/windows/check.ps1) records with WPR and decodes with
 * ehdecode; what it still takes from etwcapture is --tdh-check on the WPR .etl
 * (--decode-etl): TDH, Microsoft's own decoder, exists only on Windows. -g prints the
 * provider GUIDs that scripts/windows/ehconf.wprp lists.
 *
 *   etwcapture -p EhconfStructs [-p ...] -o structs.json [--tlcap structs.tlcap] -- structs.exe
 *
 * Steps: StartTraceW (file mode, unique session name, BufferSize >= 64 KB) ->
 * EnableTraceEx2 (every provider: level 5, all keywords) -> run the case (stdout and
 * stderr inherited) -> ControlTraceW(STOP) -> fail if EventsLost or LogBuffersLost != 0
 * -> OpenTraceW/ProcessTrace over the .etl -> for each event of the providers: the
 * SCHEMA_TL extended item (0x0B, event metadata), PROV_TRAITS (0x0C, provider metadata),
 * the descriptor, activity ids and UserData -> a .tlcap record -> ehd_tlcap_decode, the
 * same platform-neutral decoder ehdecode uses on Linux (tested there).
 * --decode-etl FILE skips the session and decodes an existing .etl (e.g. from wpr.exe).
 * --tdh-check asks TDH (TdhGetEventInformation, DecodingSource Tlg), an independent
 * decoder, for each event's name and top-level field count and fails on a disagreement
 * (not usable under wine: its TDH aborts).
 *
 * Exit status: 0 case passed and capture complete; 3 case exited non-zero (capture
 * still written); 1 events lost or an event did not decode; 2 usage or ETW API error
 * (starting a session needs an elevated prompt). Administrator rights are required.
 *
 * NOT RUN ON WINDOWS YET: built with mingw-w64 and started under wine, whose ETW
 * controller functions are stubs (OpenTraceW fails there); see README "Windows".
 */
#ifdef _WIN32

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include <windows.h>
#include <evntcons.h>
#include <evntrace.h>
#include <tdh.h>

#include "tl_encode.h" /* eh_tl_guid_from_name */
#include "ehd.h"
#include "ehd_tl.h"
#include "etw_record.h"

/* TDH's decoding source for TraceLogging events; its event name sits in the slot mingw
 * calls ActivityIDNameOffset (EventNameOffset in the Windows SDK). */
#define EHCONF_DECODING_SOURCE_TLG 3

#define MAX_PROVIDERS 64

struct capture {
    GUID guids[MAX_PROVIDERS];
    const char *names[MAX_PROVIDERS];
    int n;
    FILE *tlcap;           /* records of the wanted providers */
    unsigned long events;  /* records written */
    unsigned long skipped; /* events of the providers without TraceLogging metadata */
    int write_error;
    int tdh_check; /* --tdh-check: compare TDH's view of every event with ours */
    unsigned long tdh_mismatches;
};

static struct capture g_cap;

static void usage(FILE *to)
{
    fputs("usage: etwcapture -p PROVIDER [-p ...] [-o OUT.json] [--tlcap OUT.tlcap]\n"
          "                  [--etl FILE.etl] [--keep-etl] [--buffer-kb N] [--tdh-check]\n"
          "                  -- CASE.exe [ARGS]\n"
          "       etwcapture -p PROVIDER [...] [-o OUT.json] [--tdh-check] --decode-etl FILE.etl\n"
          "       etwcapture -g PROVIDER      (prints the provider GUID)\n"
          "Runs CASE under a private ETW session enabled for the providers (GUID = name hash)\n"
          "and prints the TraceLogging events as `ehdecode --golden` JSON lines.\n"
          "Exit: 0 ok, 3 case failed, 1 events lost or undecodable, 2 usage/ETW error.\n",
          to);
}

static int wanted(const GUID *g)
{
    for (int i = 0; i < g_cap.n; i++)
        if (memcmp(&g_cap.guids[i], g, sizeof *g) == 0)
            return 1;
    return 0;
}

/* --tdh-check: TDH (an independent TraceLogging decoder, Windows only) must see the same
 * event name and the same number of top-level fields as our metadata says. */
static void tdh_check(PEVENT_RECORD er, const uint8_t *schema, size_t schema_n)
{
    const char *name = NULL;
    unsigned top = 0;
    if (etw_schema_summary(schema, schema_n, &name, &top) != 0) {
        fputs("etwcapture: tdh-check: our SCHEMA_TL parse failed\n", stderr);
        g_cap.tdh_mismatches++;
        return;
    }
    ULONG size = 0;
    ULONG st = TdhGetEventInformation(er, 0, NULL, NULL, &size);
    PTRACE_EVENT_INFO info = st == ERROR_INSUFFICIENT_BUFFER ? malloc(size) : NULL;
    if (info)
        st = TdhGetEventInformation(er, 0, NULL, info, &size);
    if (!info || st != ERROR_SUCCESS) {
        fprintf(stderr, "etwcapture: tdh-check: %s: TdhGetEventInformation error %lu\n", name,
                (unsigned long)st);
        g_cap.tdh_mismatches++;
        free(info);
        return;
    }
    char tdh_name[256] = "";
    if ((ULONG)info->DecodingSource == EHCONF_DECODING_SOURCE_TLG && info->ActivityIDNameOffset &&
        info->ActivityIDNameOffset < size)
        WideCharToMultiByte(CP_UTF8, 0,
                            (const wchar_t *)((const char *)info + info->ActivityIDNameOffset), -1,
                            tdh_name, sizeof tdh_name, NULL, NULL);
    if ((ULONG)info->DecodingSource != EHCONF_DECODING_SOURCE_TLG || strcmp(tdh_name, name) != 0 ||
        info->TopLevelPropertyCount != top) {
        fprintf(stderr,
                "etwcapture: tdh-check: %s: TDH says source %lu, name '%s', %lu top-level "
                "fields; the metadata says '%s', %u\n",
                name, (unsigned long)info->DecodingSource, tdh_name,
                (unsigned long)info->TopLevelPropertyCount, name, top);
        g_cap.tdh_mismatches++;
    }
    free(info);
}

/* ProcessTrace callback: one EVENT_RECORD -> one .tlcap record (wanted providers only). */
static VOID WINAPI on_event(PEVENT_RECORD er)
{
    if (!wanted(&er->EventHeader.ProviderId))
        return;
    const uint8_t *schema;
    size_t schema_n;
    if (etw_record_schema(er, &schema, &schema_n) != 0) {
        g_cap.skipped++;
        return;
    }
    if (g_cap.tdh_check)
        tdh_check(er, schema, schema_n);
    uint8_t *rec;
    size_t size;
    int err = etw_record_to_tlcap(er, &rec, &size);
    if (err) {
        g_cap.write_error = 1;
        return;
    }
    if (fwrite(rec, 1, size, g_cap.tlcap) != size)
        g_cap.write_error = 1;
    free(rec);
    g_cap.events++;
}

static wchar_t *widen(const char *s)
{
    int n = MultiByteToWideChar(CP_UTF8, 0, s, -1, NULL, 0);
    wchar_t *w = n > 0 ? malloc((size_t)n * sizeof *w) : NULL;
    if (w)
        MultiByteToWideChar(CP_UTF8, 0, s, -1, w, n);
    return w;
}

/* Reads the .etl into g_cap.tlcap. Returns 0 or 2. */
static int read_etl(const wchar_t *etl)
{
    EVENT_TRACE_LOGFILEW lf;
    memset(&lf, 0, sizeof lf);
    lf.LogFileName = (LPWSTR)etl;
    lf.ProcessTraceMode = PROCESS_TRACE_MODE_EVENT_RECORD;
    lf.EventRecordCallback = on_event;
    TRACEHANDLE h = OpenTraceW(&lf);
    if (h == INVALID_PROCESSTRACE_HANDLE) {
        fprintf(stderr, "etwcapture: OpenTraceW failed: error %lu\n",
                (unsigned long)GetLastError());
        return 2;
    }
    ULONG st = ProcessTrace(&h, 1, NULL, NULL);
    CloseTrace(h);
    if (st != ERROR_SUCCESS) {
        fprintf(stderr, "etwcapture: ProcessTrace failed: error %lu\n", (unsigned long)st);
        return 2;
    }
    return 0;
}

/* Builds the command line of CreateProcessW from argv (quoting per the MSVC rules). */
static wchar_t *command_line(char **argv)
{
    size_t cap = 16;
    for (char **a = argv; *a; a++)
        cap += 2 * strlen(*a) + 3;
    char *line = malloc(cap), *o = line;
    if (!line)
        return NULL;
    for (char **a = argv; *a; a++) {
        if (a != argv)
            *o++ = ' ';
        *o++ = '"';
        size_t slashes = 0;
        for (const char *c = *a; *c; c++) {
            if (*c == '\\') {
                slashes++;
            } else {
                if (*c == '"')
                    for (size_t k = 0; k < slashes + 1; k++)
                        *o++ = '\\';
                slashes = 0;
            }
            *o++ = *c;
        }
        for (size_t k = 0; k < slashes; k++)
            *o++ = '\\';
        *o++ = '"';
    }
    *o = 0;
    wchar_t *w = widen(line);
    free(line);
    return w;
}

/* Runs the case; returns its exit code, or -1 if it could not start. */
static long run_case(char **argv)
{
    wchar_t *cmd = command_line(argv);
    if (!cmd)
        return -1;
    STARTUPINFOW si;
    PROCESS_INFORMATION pi;
    memset(&si, 0, sizeof si);
    si.cb = sizeof si;
    BOOL ok = CreateProcessW(NULL, cmd, NULL, NULL, TRUE, 0, NULL, NULL, &si, &pi);
    free(cmd);
    if (!ok) {
        fprintf(stderr, "etwcapture: cannot start %s: error %lu\n", argv[0],
                (unsigned long)GetLastError());
        return -1;
    }
    WaitForSingleObject(pi.hProcess, INFINITE);
    DWORD code = 1;
    GetExitCodeProcess(pi.hProcess, &code);
    CloseHandle(pi.hThread);
    CloseHandle(pi.hProcess);
    return (long)code;
}

/* EVENT_TRACE_PROPERTIES followed by the session name and the log file name. */
struct session_props {
    EVENT_TRACE_PROPERTIES p;
    wchar_t name[128];
    wchar_t file[MAX_PATH + 1];
};

static void emit_line(void *ctx, const char *json, size_t len)
{
    fwrite(json, 1, len, ctx);
    fputc('\n', ctx);
}

static void diag_line(void *ctx, uint64_t off, const char *reason)
{
    fprintf(stderr, "etwcapture: %s:%llu: %s\n", (const char *)ctx, (unsigned long long)off,
            reason);
}

int main(int argc, char **argv)
{
    const char *out_path = NULL, *tlcap_path = NULL, *etl_arg = NULL, *decode_etl = NULL;
    int keep_etl = 0;
    unsigned buffer_kb = 64;
    char **cmd = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int more = i + 1 < argc;
        if (strcmp(a, "--") == 0) {
            cmd = argv + i + 1;
            break;
        } else if ((strcmp(a, "-p") == 0 || strcmp(a, "--provider") == 0) && more) {
            if (g_cap.n == MAX_PROVIDERS) {
                fputs("etwcapture: too many providers\n", stderr);
                return 2;
            }
            const char *name = argv[++i];
            if (eh_tl_guid_from_name(name, strlen(name), (uint8_t *)&g_cap.guids[g_cap.n]) != 0) {
                fprintf(stderr, "etwcapture: bad provider name %s\n", name);
                return 2;
            }
            g_cap.names[g_cap.n++] = name;
        } else if ((strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) && more) {
            out_path = argv[++i];
        } else if (strcmp(a, "--tlcap") == 0 && more) {
            tlcap_path = argv[++i];
        } else if (strcmp(a, "--etl") == 0 && more) {
            etl_arg = argv[++i];
        } else if (strcmp(a, "--decode-etl") == 0 && more) {
            decode_etl = argv[++i];
        } else if (strcmp(a, "--tdh-check") == 0) {
            g_cap.tdh_check = 1;
        } else if (strcmp(a, "--keep-etl") == 0) {
            keep_etl = 1;
        } else if (strcmp(a, "--buffer-kb") == 0 && more) {
            buffer_kb = (unsigned)strtoul(argv[++i], NULL, 10);
            if (buffer_kb < 64)
                buffer_kb = 64; /* smaller buffers silently drop events near 64 KB */
        } else if ((strcmp(a, "-g") == 0 || strcmp(a, "--guid") == 0) && more) {
            /* The provider GUID of a name, e.g. for scripts/windows/ehconf.wprp. */
            uint8_t g[16];
            char text[37];
            const char *name = argv[++i];
            if (eh_tl_guid_from_name(name, strlen(name), g) != 0) {
                fprintf(stderr, "etwcapture: bad provider name %s\n", name);
                return 2;
            }
            eh_tl_guid_format(g, text);
            printf("%s %s\n", text, name);
            return 0;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            return 0;
        } else {
            usage(stderr);
            return 2;
        }
    }
    if (g_cap.n == 0 || (!cmd && !decode_etl) || (cmd && !cmd[0])) {
        usage(stderr);
        return 2;
    }

    /* The .tlcap is the intermediate form; a temporary file unless --tlcap names one. */
    g_cap.tlcap = tlcap_path ? fopen(tlcap_path, "w+b") : tmpfile();
    if (!g_cap.tlcap) {
        fprintf(stderr, "etwcapture: cannot create the .tlcap file: %s\n", strerror(errno));
        return 2;
    }
    fwrite(EHD_TLCAP_MAGIC, 1, EHD_TLCAP_MAGIC_SIZE, g_cap.tlcap);

    int status = 0;
    long case_rc = 0;
    wchar_t *etl = NULL;
    if (decode_etl) {
        etl = widen(decode_etl);
        if (!etl || read_etl(etl) != 0)
            return 2;
    } else {
        struct session_props *sp = calloc(1, sizeof *sp);
        if (!sp)
            return 2;
        swprintf(sp->name, 128, L"ehconf-etwcapture-%lu-%lu", (unsigned long)GetCurrentProcessId(),
                 (unsigned long)GetTickCount());
        if (etl_arg) {
            wchar_t *w = widen(etl_arg);
            if (!w)
                return 2;
            wcsncpy(sp->file, w, MAX_PATH);
            free(w);
        } else {
            wchar_t tmp[MAX_PATH + 1];
            GetTempPathW(MAX_PATH, tmp);
            swprintf(sp->file, MAX_PATH, L"%ls%ls.etl", tmp, sp->name);
        }
        sp->p.Wnode.BufferSize = sizeof *sp;
        sp->p.Wnode.Flags = WNODE_FLAG_TRACED_GUID;
        sp->p.Wnode.ClientContext = 1; /* QueryPerformanceCounter timestamps */
        sp->p.BufferSize = buffer_kb;
        sp->p.MinimumBuffers = 16;
        sp->p.MaximumBuffers = 128;
        sp->p.LogFileMode = EVENT_TRACE_FILE_MODE_SEQUENTIAL;
        sp->p.LoggerNameOffset = offsetof(struct session_props, name);
        sp->p.LogFileNameOffset = offsetof(struct session_props, file);
        TRACEHANDLE session = 0;
        ULONG st = StartTraceW(&session, sp->name, &sp->p);
        if (st != ERROR_SUCCESS) {
            fprintf(stderr, "etwcapture: StartTraceW failed: error %lu (administrator rights?)\n",
                    (unsigned long)st);
            return 2;
        }
        for (int i = 0; i < g_cap.n && st == ERROR_SUCCESS; i++) {
            st = EnableTraceEx2(session, &g_cap.guids[i], EVENT_CONTROL_CODE_ENABLE_PROVIDER,
                                TRACE_LEVEL_VERBOSE, ~0ull, 0, 0, NULL);
            if (st != ERROR_SUCCESS)
                fprintf(stderr, "etwcapture: EnableTraceEx2(%s) failed: error %lu\n",
                        g_cap.names[i], (unsigned long)st);
        }
        if (st == ERROR_SUCCESS) {
            case_rc = run_case(cmd);
            if (case_rc < 0)
                status = 2;
        } else {
            status = 2;
        }
        st = ControlTraceW(session, NULL, &sp->p, EVENT_TRACE_CONTROL_STOP);
        if (st != ERROR_SUCCESS) {
            fprintf(stderr, "etwcapture: stopping the session failed: error %lu\n",
                    (unsigned long)st);
            status = 2;
        }
        if (sp->p.EventsLost || sp->p.LogBuffersLost) {
            fprintf(stderr, "etwcapture: the session lost %lu events and %lu buffers\n",
                    (unsigned long)sp->p.EventsLost, (unsigned long)sp->p.LogBuffersLost);
            if (!status)
                status = 1;
        }
        etl = _wcsdup(sp->file);
        free(sp);
        if (status != 2 && read_etl(etl) != 0)
            status = 2;
        if (!keep_etl && !etl_arg)
            DeleteFileW(etl);
    }
    free(etl);

    FILE *out = out_path ? fopen(out_path, "wb") : stdout;
    if (!out) {
        fprintf(stderr, "etwcapture: %s: %s\n", out_path, strerror(errno));
        return 2;
    }
    fflush(g_cap.tlcap);
    rewind(g_cap.tlcap);
    if (ehd_tlcap_decode(g_cap.tlcap, EHD_JSON_SPACE | EHD_JSON_FIELD_TAG | EHD_META_GOLDEN,
                         emit_line, out, diag_line,
                         (void *)(tlcap_path ? tlcap_path : "capture")) &&
        !status)
        status = 1;
    if (g_cap.tdh_mismatches) {
        fprintf(stderr, "etwcapture: tdh-check: %lu events where TDH disagrees\n",
                g_cap.tdh_mismatches);
        if (!status)
            status = 1;
    }
    if (g_cap.write_error) {
        fputs("etwcapture: writing the .tlcap failed\n", stderr);
        status = 2;
    }
    if (out != stdout)
        fclose(out);
    fclose(g_cap.tlcap);
    if (!status && case_rc != 0)
        status = 3;
    fprintf(stderr,
            "etwcapture: %lu events captured, %lu without TraceLogging metadata, case exit %ld\n",
            g_cap.events, g_cap.skipped, case_rc);
    return status;
}

#else /* !_WIN32 */

#include <stdio.h>

int main(void)
{
    fputs("etwcapture: Windows only (build with make VARIANT=mingw windows-build)\n", stderr);
    return 2;
}

#endif /* _WIN32 */
