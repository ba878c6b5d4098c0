/* SPDX-License-Identifier: MIT */
#include "support_capture.h"
#include "ktap.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char g_path[4096];

void cap_cleanup(void)
{
    if (g_path[0])
        unlink(g_path);
}

const char *cap_setup(const char *tag)
{
    char name[128];
    snprintf(name, sizeof name, "ehconf-%s-XXXXXX", tag);
    int fd = kt_tmp_template(g_path, sizeof g_path, name) ? mkstemp(g_path) : -1;
    if (fd < 0) {
        kt_diag("mkstemp %s: %s", g_path, strerror(errno));
        g_path[0] = 0;
        return g_path;
    }
    close(fd);
    setenv("EHCONF_CAPTURE", g_path, 1);
    atexit(cap_cleanup);
    return g_path;
}

size_t cap_size(void)
{
    struct stat st;
    return stat(g_path, &st) == 0 ? (size_t)st.st_size : 0;
}

uint8_t *cap_read_from(size_t from, size_t *len)
{
    size_t size = cap_size();
    *len = 0;
    uint8_t *buf = malloc(size > from ? size - from + 1 : 1);
    FILE *f = fopen(g_path, "rb");
    if (!buf || !f) {
        if (f)
            fclose(f);
        return buf;
    }
    if (size > from && fseek(f, (long)from, SEEK_SET) == 0)
        *len = fread(buf, 1, size - from, f);
    fclose(f);
    return buf;
}

int cap_next(const uint8_t **p, const uint8_t *end, struct cap_record *rec)
{
    const uint8_t *r = *p;
    if (r == end)
        return 0;
    if (end - r < 4)
        return -1;
    uint32_t size =
        (uint32_t)r[0] | (uint32_t)r[1] << 8 | (uint32_t)r[2] << 16 | (uint32_t)r[3] << 24;
    if (size < 6 || size > (size_t)(end - r))
        return -1;
    const uint8_t *nul = memchr(r + 4, 0, size - 4);
    if (!nul)
        return -1;
    rec->name = (const char *)r + 4;
    rec->event = nul + 1;
    rec->event_len = (size_t)(r + size - rec->event);
    *p = r + size;
    return 1;
}

static void diag(const char *file, int line, const char *what)
{
    printf("# %s:%d: %s\n", file, line, what);
}

int cap_expect_one(const char *file, int line, size_t mark, const char *name, const uint8_t *event,
                   size_t event_len)
{
    size_t len;
    uint8_t *buf = cap_read_from(mark, &len);
    const uint8_t *p = buf, *end = buf + len;
    struct cap_record rec;
    int ok = 0;
    if (cap_next(&p, end, &rec) != 1) {
        diag(file, line, "no record appended");
    } else if (p != end) {
        diag(file, line, "more than one record appended");
    } else if (strcmp(rec.name, name) != 0) {
        diag(file, line, "tracepoint name differs");
        printf("#   got : %s\n#   want: %s\n", rec.name, name);
    } else {
        ok = kt_mem_diff(file, line, "event bytes", rec.event, rec.event_len, event, event_len);
    }
    free(buf);
    return ok;
}
