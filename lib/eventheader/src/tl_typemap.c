/* SPDX-License-Identifier: MIT */
/*
 * The EventHeader -> TraceLogging type map, platform-neutral (tl_translate.h).
 *
 * TYPE MAPPING (Documentation/tracelogging.md §5; the
 * decoder lib/decode/src/tl_json.c maps back, so one golden JSON serves both):
 *   value8   signed I8 | hex U8+Hex | boolean U8+Boolean | string8 U8+String | else U8
 *   value16  signed I16 | hex U16+Hex | string_utf U16+String | port U16+Port (bytes kept
 *            big-endian) | boolean -> Bool32 (widened, zero-extended) | else U16
 *   value32  signed I32 | hex Hex32 | errno I32 (name lost) | pid U32+Pid | time FileTime |
 *            boolean Bool32 | float F32 | ip_address U32+IPv4 | string_utf (one char32)
 *            -> Str16 (transcoded to UTF-16) | else U32
 *   value64  signed I64 | hex Hex64 | time FileTime | float F64 | else U64
 *   value128 uuid Guid (Data1-3 swapped: EventHeader is RFC 4122 big-endian) |
 *            ip_address Binary+IPv6 (u16 length 16 added) | else BinaryC (hex bytes)
 *   any value with hex_bytes -> BinaryC (u16 length added)
 *   zstring_char8  utf/default CStr8+Utf8 | string8 CStr8 | json CStr8+Json | xml CStr8+Xml
 *   zstring_char16 CStr16 (+Json / +Xml);  zstring_char32 -> CStr16 (transcoded)
 *   string_length16_char8  Str8+Utf8 | string8 Str8 | json/xml Str8+Json/Xml
 *   string_length16_char16 Str16 (u16 count of units -> u16 BYTE count)
 *   string_length16_char32 -> Str16 (transcoded)
 *   binary_length16_char8  BinaryC (string8/utf/json/xml formats -> Str8 as above)
 *   strings with hex_bytes -> BinaryC of the bytes (without the NUL of a zstring)
 *   struct   Struct, member count in the OutType slot
 * Binary (14) is only used for fields outside every array (TraceLogging decoders do not
 * support arrays of it); inside arrays BinaryC (25) is used instead.
 * time -> FILETIME: t * 10^7 + 116444736000000000, clamped to [0, TL_FILETIME_MAX] as
 * Microsoft's encoders do (tl_payload.c; the decoded JSON then differs, documented in
 * tl_json.c).
 * TYPE HINTS (eventheader.h EH_TL_HINT_*_, Documentation/tracelogging.md §5): write_event!
 * types whose EventHeader form is another type's get Microsoft's InType/OutType, as the
 * Rust tracelogging crate's write_event! table gives them:
 *   hresult I32+HResult | tid U32+Tid | codepointer Hex64 (Hex32)+CodePointer |
 *   socketaddress Binary+SocketAddress | socketaddressc BinaryC+SocketAddress |
 *   binaryc BinaryC | ipv6c BinaryC+IPv6   (their slices and arrays likewise)
 * Tags: EventHeader's u16 event/field tags become TraceLogging's 28-bit tags unchanged.
 * Each row of the field-type table (lib/eventheader/include/eh_field_types.def) names the
 * InType/OutType its type must get here: tests/tl/test_tl_field_types.c checks every row,
 * its slice and its array, so a new type this map does not know fails there.
 * Only little-endian EventHeader events are translated (EINVAL otherwise).
 */
#include <errno.h>

#include "eventheader.h"
#include "eventheader_read.h"
#include "tl_translate.h"

static int is_hexbytes_string_fmt(unsigned fmt)
{
    return fmt == EH_FMT_HEX_BYTES;
}

/* Chooses InType, OutType and the conversion of a non-struct field. */
int eh_tl_map_type(unsigned enc, unsigned fmt, int in_array, uint8_t *in, uint8_t *out,
                   uint8_t *conv, uint8_t *size)
{
    uint8_t binary = in_array ? TL_IN_BINARYC : TL_IN_BINARY;
    *out = TL_OUT_DEFAULT;
    *conv = CV_COPY;
    switch (enc) {
    case EH_ENC_VALUE8:
    case EH_ENC_VALUE16:
    case EH_ENC_VALUE32:
    case EH_ENC_VALUE64:
    case EH_ENC_VALUE128:
        *size = (uint8_t)eh_enc_value_size(enc);
        if (fmt == EH_FMT_HEX_BYTES) {
            *in = TL_IN_BINARYC;
            *conv = CV_PREFIX;
            return 0;
        }
        break;
    default: break;
    }
    switch (enc) {
    case EH_ENC_VALUE8:
        switch (fmt) {
        case EH_FMT_SIGNED_INT: *in = TL_IN_I8; break;
        case EH_FMT_HEX_INT: *in = TL_IN_U8, *out = TL_OUT_HEX; break;
        case EH_FMT_BOOLEAN: *in = TL_IN_U8, *out = TL_OUT_BOOLEAN; break;
        case EH_FMT_STRING8: *in = TL_IN_U8, *out = TL_OUT_STRING; break;
        default: *in = TL_IN_U8; break;
        }
        return 0;
    case EH_ENC_VALUE16:
        switch (fmt) {
        case EH_FMT_SIGNED_INT: *in = TL_IN_I16; break;
        case EH_FMT_HEX_INT: *in = TL_IN_U16, *out = TL_OUT_HEX; break;
        case EH_FMT_STRING_UTF: *in = TL_IN_U16, *out = TL_OUT_STRING; break;
        case EH_FMT_PORT: *in = TL_IN_U16, *out = TL_OUT_PORT; break;
        case EH_FMT_BOOLEAN: *in = TL_IN_BOOL32, *conv = CV_WIDEN16; break;
        default: *in = TL_IN_U16; break;
        }
        return 0;
    case EH_ENC_VALUE32:
        switch (fmt) {
        case EH_FMT_SIGNED_INT:
        case EH_FMT_ERRNO: *in = TL_IN_I32; break;
        case EH_FMT_HEX_INT: *in = TL_IN_HEX32; break;
        case EH_FMT_PID: *in = TL_IN_U32, *out = TL_OUT_PID; break;
        case EH_FMT_TIME: *in = TL_IN_FILETIME, *conv = CV_TIME32; break;
        case EH_FMT_BOOLEAN: *in = TL_IN_BOOL32; break;
        case EH_FMT_FLOAT: *in = TL_IN_F32; break;
        case EH_FMT_IP_ADDRESS:
        case EH_FMT_IP_ADDRESS_OBSOLETE: *in = TL_IN_U32, *out = TL_OUT_IPV4; break;
        case EH_FMT_STRING_UTF: *in = TL_IN_STR16, *conv = CV_CHAR32; break;
        default: *in = TL_IN_U32; break;
        }
        return 0;
    case EH_ENC_VALUE64:
        switch (fmt) {
        case EH_FMT_SIGNED_INT: *in = TL_IN_I64; break;
        case EH_FMT_HEX_INT: *in = TL_IN_HEX64; break;
        case EH_FMT_TIME: *in = TL_IN_FILETIME, *conv = CV_TIME64; break;
        case EH_FMT_FLOAT: *in = TL_IN_F64; break;
        default: *in = TL_IN_U64; break;
        }
        return 0;
    case EH_ENC_VALUE128:
        switch (fmt) {
        case EH_FMT_UUID: *in = TL_IN_GUID, *conv = CV_GUID; break;
        case EH_FMT_IP_ADDRESS:
        case EH_FMT_IP_ADDRESS_OBSOLETE: *in = binary, *out = TL_OUT_IPV6, *conv = CV_PREFIX; break;
        default: *in = TL_IN_BINARYC, *conv = CV_PREFIX; break;
        }
        return 0;
    case EH_ENC_ZSTRING_CHAR8:
    case EH_ENC_ZSTRING_CHAR16:
    case EH_ENC_ZSTRING_CHAR32:
        *size = (uint8_t)(enc == EH_ENC_ZSTRING_CHAR8 ? 1 : enc == EH_ENC_ZSTRING_CHAR16 ? 2 : 4);
        if (is_hexbytes_string_fmt(fmt)) {
            *in = binary, *conv = CV_ZBIN;
            return 0;
        }
        *conv = enc == EH_ENC_ZSTRING_CHAR32 ? CV_Z32 : CV_ZCOPY;
        *in = enc == EH_ENC_ZSTRING_CHAR8 ? TL_IN_CSTR8 : TL_IN_CSTR16;
        if (fmt == EH_FMT_STRING_JSON)
            *out = TL_OUT_JSON;
        else if (fmt == EH_FMT_STRING_XML)
            *out = TL_OUT_XML;
        else if (enc == EH_ENC_ZSTRING_CHAR8 && fmt != EH_FMT_STRING8)
            *out = TL_OUT_UTF8;
        return 0;
    case EH_ENC_STRING_LENGTH16_CHAR8:
    case EH_ENC_STRING_LENGTH16_CHAR16:
    case EH_ENC_STRING_LENGTH16_CHAR32:
    case EH_ENC_BINARY_LENGTH16_CHAR8:
        *size = (uint8_t)(enc == EH_ENC_STRING_LENGTH16_CHAR16   ? 2
                          : enc == EH_ENC_STRING_LENGTH16_CHAR32 ? 4
                                                                 : 1);
        *conv = enc == EH_ENC_STRING_LENGTH16_CHAR32 ? CV_COUNTED32 : CV_COUNTED;
        if (is_hexbytes_string_fmt(fmt) ||
            (enc == EH_ENC_BINARY_LENGTH16_CHAR8 && fmt != EH_FMT_STRING8 &&
             fmt != EH_FMT_STRING_UTF && fmt != EH_FMT_STRING_JSON && fmt != EH_FMT_STRING_XML)) {
            *in = binary;
            *conv = CV_COUNTED;
            return 0;
        }
        *in = *size == 1 ? TL_IN_STR8 : TL_IN_STR16;
        if (fmt == EH_FMT_STRING_JSON)
            *out = TL_OUT_JSON;
        else if (fmt == EH_FMT_STRING_XML)
            *out = TL_OUT_XML;
        else if (*size == 1 && fmt != EH_FMT_STRING8)
            *out = TL_OUT_UTF8;
        return 0;
    default: return EINVAL;
    }
}

void eh_tl_apply_hint(unsigned hint, unsigned enc, unsigned fmt, int in_array, uint8_t *in,
                      uint8_t *out)
{
    /* Only where the field is still what the hint's macro writes: an EH_FORMAT() override
     * (EH_HRESULT(.., EH_FORMAT(EH_FMT_SIGNED_INT))) makes it another type, kept as mapped. */
    int counted_hex = enc == EH_ENC_STRING_LENGTH16_CHAR8 && fmt == EH_FMT_HEX_BYTES;
    switch (hint) {
    case EH_TL_HINT_HRESULT_:
        if (enc == EH_ENC_VALUE32 && fmt == EH_FMT_HEX_INT)
            *in = TL_IN_I32, *out = TL_OUT_HRESULT;
        break;
    case EH_TL_HINT_TID_:
        if (enc == EH_ENC_VALUE32 && fmt == EH_FMT_PID)
            *in = TL_IN_U32, *out = TL_OUT_TID;
        break;
    case EH_TL_HINT_CODEPOINTER_:
        if ((enc == EH_ENC_VALUE32 || enc == EH_ENC_VALUE64) && fmt == EH_FMT_HEX_INT)
            *out = TL_OUT_CODEPOINTER; /* InType stays Hex32 / Hex64, the pointer's size */
        break;
    case EH_TL_HINT_SOCKETADDRESS_:
        if (counted_hex)
            *in = in_array ? TL_IN_BINARYC : TL_IN_BINARY, *out = TL_OUT_SOCKETADDRESS;
        break;
    case EH_TL_HINT_SOCKETADDRESSC_:
        if (counted_hex)
            *in = TL_IN_BINARYC, *out = TL_OUT_SOCKETADDRESS;
        break;
    case EH_TL_HINT_BINARYC_:
        if (counted_hex)
            *in = TL_IN_BINARYC, *out = TL_OUT_DEFAULT;
        break;
    case EH_TL_HINT_IPV6C_:
        if (enc == EH_ENC_VALUE128 && fmt == EH_FMT_IP_ADDRESS)
            *in = TL_IN_BINARYC, *out = TL_OUT_IPV6;
        break;
    default: break;
    }
}
