/* SPDX-License-Identifier: MIT */
/*
 * ehd_format_datetime: seconds since 1970-01-01T00:00:00 UTC -> calendar text,
 * for EVERY int64 value (Documentation/decoder-json.md §4.6 without the reference's
 * gmtime_r range failure "TIME(n)").
 *
 * PINNED FORMAT: proleptic Gregorian calendar, UTC, astronomical year
 * numbering (year 0 = 1 BC, year -1 = 2 BC), "Y-MM-DDTHH:MM:SS" where Y is
 *   - years 0..9999:  exactly 4 digits, zero-padded      "0000-12-31T23:59:59"
 *   - years > 9999:   all digits, no sign                "10000-01-01T00:00:00"
 *   - years < 0:      '-' then at least 4 digits          "-0001-12-31T23:59:59"
 * (the ISO 8601 expanded form without the '+' on large years). The reference
 * prints year -1 as "-001" (printf "%04d" counts the sign) and wraps years
 * above INT_MAX; both are deliberately not reproduced. Extremes:
 *   INT64_MIN -> "-292277022657-01-27T08:29:52"
 *   INT64_MAX -> "292277026596-12-04T15:30:07"
 * No "Z" and no fraction (the caller adds them where wanted).
 */
#include <stdio.h>

#include "ehd.h"

/* Days since 1970-01-01 -> year/month/day, proleptic Gregorian. Works on
 * 400-year eras (146097 days each) so any int64 day count stays in range. */
static void civil_from_days(int64_t days, int64_t *year, unsigned *month, unsigned *day)
{
    int64_t z = days + 719468; /* days since 0000-03-01 */
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    int64_t doe = z - era * 146097;                                      /* 0..146096 */
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365; /* 0..399 */
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);               /* 0..365, from Mar 1 */
    int64_t mp = (5 * doy + 2) / 153;                                    /* 0 = March */
    *day = (unsigned)(doy - (153 * mp + 2) / 5 + 1);
    *month = (unsigned)(mp < 10 ? mp + 3 : mp - 9);
    *year = yoe + era * 400 + (*month <= 2);
}

size_t ehd_format_datetime(char *dst, int64_t seconds)
{
    /* Floor division without overflow, also for INT64_MIN. */
    int64_t days = seconds / 86400;
    int64_t sod = seconds % 86400;
    if (sod < 0) {
        sod += 86400;
        days -= 1;
    }
    int64_t year;
    unsigned month, day;
    civil_from_days(days, &year, &month, &day);
    unsigned hh = (unsigned)(sod / 3600), mm = (unsigned)(sod / 60 % 60), ss = (unsigned)(sod % 60);
    /* "%04lld-%02u-%02uT%02u:%02u:%02u" with a '-' before negative years, written
     * without printf: this runs for every time field of every event. */
    char *o = dst;
    uint64_t y = year < 0 ? (uint64_t)0 - (uint64_t)year : (uint64_t)year;
    char digits[20];
    unsigned nd = 0;

    if (year < 0)
        *o++ = '-';
    do
        digits[nd++] = (char)('0' + y % 10);
    while ((y /= 10) != 0);
    while (nd < 4)
        digits[nd++] = '0';
    while (nd)
        *o++ = digits[--nd];
    const unsigned parts[5] = {month, day, hh, mm, ss};
    const char seps[5] = {'-', '-', 'T', ':', ':'};
    for (unsigned i = 0; i < 5; i++) {
        *o++ = seps[i];
        *o++ = (char)('0' + parts[i] / 10);
        *o++ = (char)('0' + parts[i] % 10);
    }
    *o = 0;
    return (size_t)(o - dst);
}
