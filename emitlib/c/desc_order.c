/* SPDX-License-Identifier: MIT */
/*
 * The machine's byte order for a description's values. A description gives every value
 * as its little-endian wire bytes (Documentation/case-descriptions.md); an emitter hands
 * them to an API that takes numbers, so on a big-endian machine each number must be the
 * machine's. Which bytes are numbers is the format's rule (eventheader-wire.md §5, the
 * rendering of decoder-json.md §4): integers, floats, times and char16/char32 code units
 * follow the event's byte order; uuids, IPv4/IPv6 addresses, ports and hex_bytes are
 * bytes whose order is fixed whatever the machine.
 */
#include "desc_internal.h"
#include "eventheader_wire.h"

/* A value of size bytes in this format is bytes in a fixed order, not a number. */
static int fixed_order(uint8_t format, size_t size)
{
    switch (format) {
    case EH_FMT_HEX_BYTES: return 1;
    case EH_FMT_PORT: return size == 2;
    case EH_FMT_IP_ADDRESS:
    case EH_FMT_IP_ADDRESS_OBSOLETE: return size == 4;
    default: return 0;
    }
}

/* A counted char8 string or binary field of size bytes whose format reads it as one
 * number (decoder-json.md §4.12, "fixed" formats): that number's size, else 0. */
static size_t counted_number(uint8_t format, size_t size)
{
    int fits;
    switch (format) {
    case EH_FMT_UNSIGNED_INT:
    case EH_FMT_SIGNED_INT:
    case EH_FMT_HEX_INT: fits = size == 2 || size == 4 || size == 8; break;
    case EH_FMT_ERRNO:
    case EH_FMT_PID: fits = size == 4; break;
    case EH_FMT_TIME:
    case EH_FMT_FLOAT: fits = size == 4 || size == 8; break;
    case EH_FMT_BOOLEAN: fits = size == 2 || size == 4; break;
    default: fits = 0; /* uuid, port, ip_address and the string formats: bytes */
    }
    return fits ? size : 0;
}

size_t desc_order_unit(const struct desc_field *f)
{
    switch (f->encoding) {
    case EH_ENC_VALUE16:
    case EH_ENC_VALUE32:
    case EH_ENC_VALUE64: return fixed_order(f->format, f->unit) ? 0 : f->unit;
    case EH_ENC_ZSTRING_CHAR16:
    case EH_ENC_STRING_LENGTH16_CHAR16:
    case EH_ENC_ZSTRING_CHAR32:
    case EH_ENC_STRING_LENGTH16_CHAR32: return f->format == EH_FMT_HEX_BYTES ? 0 : f->unit;
    case EH_ENC_STRING_LENGTH16_CHAR8:
    case EH_ENC_BINARY_LENGTH16_CHAR8:
        return f->kind == DESC_STRING ? counted_number(f->format, f->size) : 0;
    default: return 0; /* value8, value128, zstring_char8: bytes */
    }
}

void desc_reverse_units(const struct desc_field *f, uint8_t *data)
{
    size_t unit = desc_order_unit(f);
    if (unit < 2)
        return;
    for (size_t at = 0; at + unit <= f->size; at += unit) {
        for (size_t i = 0, j = unit - 1; i < j; i++, j--) {
            uint8_t t = data[at + i];
            data[at + i] = data[at + j];
            data[at + j] = t;
        }
    }
}
