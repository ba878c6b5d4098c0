/* SPDX-License-Identifier: MIT */
/* Length of 16- and 32-bit zero-terminated strings (EH_CSTR16/EH_CSTR32); NULL is empty. */
#include "eventheader.h"

size_t eh_strlen16_(const uint16_t *s)
{
    size_t n = 0;
    while (s && s[n])
        n++;
    return n;
}

size_t eh_strlen32_(const uint32_t *s)
{
    size_t n = 0;
    while (s && s[n])
        n++;
    return n;
}

size_t eh_strnlen16_(const uint16_t *s, size_t max)
{
    size_t n = 0;
    while (s && n < max && s[n])
        n++;
    return n;
}

size_t eh_strnlen32_(const uint32_t *s, size_t max)
{
    size_t n = 0;
    while (s && n < max && s[n])
        n++;
    return n;
}
