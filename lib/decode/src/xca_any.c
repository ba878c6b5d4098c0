/* SPDX-License-Identifier: MIT */
/*
 * Which MS-XCA algorithm a compressed .etl buffer uses (Documentation/etl-format.md §9.2):
 * the buffer header does not say, so the algorithms are tried in turn and the exact
 * output size decides. LZNT1 and XPRESS Huffman go first, but only when the whole stream
 * has their structure (a chain of chunk headers; a complete code table), which an XPRESS
 * stream, what Windows 8 and later write, practically never has; XPRESS, whose streams
 * have no such mark, is the last resort. The other way round, fuzzing found a 6-byte
 * LZNT1 stream that XPRESS decodes to the right size with the wrong bytes.
 */
#include <stdarg.h>
#include <stdio.h>

#include "xca_internal.h"

int ehd_xca_fail(struct ehd_xca_err *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    return EINVAL;
}

const char *ehd_xca_name(enum ehd_xca_alg alg)
{
    switch (alg) {
    case EHD_XCA_XPRESS: return "XPRESS";
    case EHD_XCA_LZNT1: return "LZNT1";
    case EHD_XCA_HUFFMAN: return "XPRESS Huffman";
    case EHD_XCA_NONE: break;
    }
    return "none";
}

int ehd_xca_decompress_any(const uint8_t *in, size_t n, uint8_t *out, size_t want,
                           enum ehd_xca_alg *alg, struct ehd_xca_err *err)
{
    struct ehd_xca_err x, l, h;
    *alg = EHD_XCA_NONE;
    if (n == 0) /* nothing stored: right only when nothing was there */
        return want == 0 ? 0 : ehd_xca_fail(err, "no compressed data for %zu bytes", want);
    snprintf(l.msg, sizeof l.msg, "LZNT1: not a chain of chunk headers with signature 3");
    if (ehd_xca_looks_lznt1(in, n) && ehd_xca_lznt1(in, n, out, want, &l) == 0) {
        *alg = EHD_XCA_LZNT1;
        return 0;
    }
    snprintf(h.msg, sizeof h.msg, "XPRESS Huffman: no complete code-length table at the start");
    if (ehd_xca_looks_huffman(in, n)) {
        int rc = ehd_xca_huffman(in, n, out, want, &h);
        if (rc == 0) {
            *alg = EHD_XCA_HUFFMAN;
            return 0;
        }
        if (rc == ENOMEM) {
            *err = h;
            return ENOMEM;
        }
    }
    if (ehd_xca_xpress(in, n, out, want, &x) == 0) {
        *alg = EHD_XCA_XPRESS;
        return 0;
    }
    /* each reason is at most about 150 characters: all three fit */
    snprintf(err->msg, sizeof err->msg, "%.150s; %.150s; %.150s", x.msg, l.msg, h.msg);
    return EINVAL;
}
