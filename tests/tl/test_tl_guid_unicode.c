/* SPDX-License-Identifier: MIT */
/*
 * Provider GUIDs of non-ASCII names (lib/eventheader/src/tl_guid.c): the name is
 * uppercased with the Unicode full mapping of Rust's char::to_uppercase before hashing.
 *
 * Every expected GUID below comes from an independent implementation, not from
 * tl_guid.c: a throwaway Rust program (rustc 1.95.0 (59807616e 2026-04-14),
 * char::UNICODE_VERSION 17.0.0) printed, for each name, the hex of the UTF-16BE units of
 *     name.chars().flat_map(|c| c.to_uppercase())   (each char via char::encode_utf16),
 * and Python's hashlib.sha1 hashed the namespace bytes 482C2DB2C39047C887F81A15BFC130FB
 * followed by those bytes; byte 7 = (byte 7 & 0x0F) | 0x50; GUID text from bytes 0-15
 * with Data1-3 little-endian. The same pipeline gives the published MyProvider vector.
 *   rustc -O -o guidcheck main.rs && ./guidcheck 'Café_Größe' ... | <hashlib script>
 *
 * The table in tl_guid.c is Unicode 15.0.0 and Rust's is 17.0.0: they differ on the 55
 * code points given an uppercase in 16.0 or 17.0 (e.g. U+0264, U+019B, Garay U+10D70..),
 * so none of those is used here. Names are hex escapes of their UTF-8 (text in comments).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tl_encode.h"
#include "ktap.h"

struct name_vector {
    const char *name; /* UTF-8 */
    const char *guid;
};

static const struct name_vector vectors[] = {
    /* The published vector: every case of it is one GUID. */
    {"MyProvider", "b3864c38-4273-58c5-545b-8b3608343471"},
    {"myprovider", "b3864c38-4273-58c5-545b-8b3608343471"},
    {"", "4445ee6c-fd5a-5b15-047a-5866ffa76aa6"},
    /* Café_Größe -> CAFÉ_GRÖSSE: U+00DF ß becomes two code points "SS". */
    {"Caf\xc3\xa9_Gr\xc3\xb6\xc3\x9f"
     "e",
     "55eb4abe-26f7-512b-2ccc-4ea70d1b4144"},
    {"CAF\xc3\x89_GR\xc3\x96SSE", "55eb4abe-26f7-512b-2ccc-4ea70d1b4144"},
    {"Stra\xc3\x9f"
     "e",
     "eb1afb46-d4b9-5cd4-2177-a8fec8316c67"}, /* Straße */
    {"STRASSE", "eb1afb46-d4b9-5cd4-2177-a8fec8316c67"},
    /* Ελληνικός_Πάροχος: final ς and σ both become Σ, ό -> Ό, ά -> Ά. */
    {"\xce\x95\xce\xbb\xce\xbb\xce\xb7\xce\xbd\xce\xb9\xce\xba\xcf\x8c\xcf\x82_"
     "\xce\xa0\xce\xac\xcf\x81\xce\xbf\xcf\x87\xce\xbf\xcf\x82",
     "2f16f7f6-ff19-56d4-31e1-aaa12aec12ab"},
    /* ΕΛΛΗΝΙΚΌΣ_ΠΆΡΟΧΟΣ */
    {"\xce\x95\xce\x9b\xce\x9b\xce\x97\xce\x9d\xce\x99\xce\x9a\xce\x8c\xce\xa3_"
     "\xce\xa0\xce\x86\xce\xa1\xce\x9f\xce\xa7\xce\x9f\xce\xa3",
     "2f16f7f6-ff19-56d4-31e1-aaa12aec12ab"},
    /* Поставщик_Событий */
    {"\xd0\x9f\xd0\xbe\xd1\x81\xd1\x82\xd0\xb0\xd0\xb2\xd1\x89\xd0\xb8\xd0\xba_"
     "\xd0\xa1\xd0\xbe\xd0\xb1\xd1\x8b\xd1\x82\xd0\xb8\xd0\xb9",
     "188eb2fc-376d-5de6-8ef6-5365248ee46b"},
    /* ПОСТАВЩИК_СОБЫТИЙ */
    {"\xd0\x9f\xd0\x9e\xd0\xa1\xd0\xa2\xd0\x90\xd0\x92\xd0\xa9\xd0\x98\xd0\x9a_"
     "\xd0\xa1\xd0\x9e\xd0\x91\xd0\xab\xd0\xa2\xd0\x98\xd0\x99",
     "188eb2fc-376d-5de6-8ef6-5365248ee46b"},
    /* Eﬀect: the ligature U+FB00 becomes "FF"; oﬃce: U+FB03 becomes "FFI". */
    {"E\xef\xac\x80"
     "ect",
     "e0f506ca-f05e-56b4-4ef9-20c5cf168e28"},
    {"EFFECT", "e0f506ca-f05e-56b4-4ef9-20c5cf168e28"},
    {"o\xef\xac\x83"
     "ce",
     "7734498b-64be-5fa0-5ef8-703d630187ae"},
    {"OFFICE", "7734498b-64be-5fa0-5ef8-703d630187ae"},
    /* Deseret 𐐨𐐯𐑅_Provider (U+10428 U+1042F U+10445) -> U+10400 U+10407 U+1041D, each
     * hashed as a surrogate pair. */
    {"\xf0\x90\x90\xa8\xf0\x90\x90\xaf\xf0\x90\x91\x85_Provider",
     "822fe16d-c02e-5ead-900c-faf21cc93aa4"},
    {"\xf0\x90\x90\x80\xf0\x90\x90\x87\xf0\x90\x90\x9d_PROVIDER",
     "822fe16d-c02e-5ead-900c-faf21cc93aa4"},
    /* The DZ digraphs: titlecase ǅ U+01C5 and lowercase ǆ U+01C6 both become Ǆ U+01C4. */
    {"\xc7\x85", "266cdf4f-1c6d-5e54-9784-ab87cff08cbb"},
    {"\xc7\x86", "266cdf4f-1c6d-5e54-9784-ab87cff08cbb"},
    {"\xc7\x84", "266cdf4f-1c6d-5e54-9784-ab87cff08cbb"},
    /* ΐᾳև: U+0390 -> 3 code points (U+0399 U+0308 U+0301), U+1FB3 -> U+0391 U+0399,
     * Armenian U+0587 -> U+0535 U+0552. */
    {"\xce\x90\xe1\xbe\xb3\xd6\x87", "576e1d83-f997-5fc0-52c0-e188efa8c0de"},
    /* µſͅ: micro sign -> Greek Μ, long s -> S, combining ypogegrammeni -> Ι. */
    {"\xc2\xb5\xc5\xbf\xcd\x85", "81912311-d68e-5bc3-d5e2-81e73f3bdd82"},
    /* İstanbul_ılık: no Turkish rule (a language-conditional line of SpecialCasing.txt):
     * İ stays U+0130, i becomes I, dotless ı becomes I. */
    {"\xc4\xb0stanbul_\xc4\xb1l\xc4\xb1k", "1d785902-6343-5551-7170-0a5781a25113"},
};

static void test_rust_vectors(void)
{
    for (size_t i = 0; i < sizeof vectors / sizeof vectors[0]; i++) {
        uint8_t g[16];
        char text[37] = "";
        int err = eh_tl_guid_from_name(vectors[i].name, strlen(vectors[i].name), g);
        KT_EXPECT_EQ(err, 0);
        if (err == 0)
            eh_tl_guid_format(g, text);
        if (strcmp(text, vectors[i].guid) != 0)
            kt_diag("vectors[%zu], %zu UTF-8 bytes:", i, strlen(vectors[i].name));
        KT_EXPECT_STR(text, vectors[i].guid);
    }
}

/* The worst expansion: U+0390 and U+03B0 are 2 UTF-8 bytes each and become 3 UTF-16 units
 * (6 bytes), the largest ratio in the table. 300 of each: a buffer sized for 2 bytes out
 * per byte in would overflow (ASan reports it). Expected GUID from the Rust program. */
static void test_worst_expansion(void)
{
    size_t n = 0;
    char *name = malloc(1200 + 1);
    KT_EXPECT(name != NULL);
    if (!name)
        return;
    for (int i = 0; i < 300; i++)
        name[n++] = '\xce', name[n++] = '\x90';
    for (int i = 0; i < 300; i++)
        name[n++] = '\xce', name[n++] = '\xb0';
    name[n] = '\0';
    uint8_t g[16];
    char text[37] = "";
    KT_EXPECT_EQ(eh_tl_guid_from_name(name, n, g), 0);
    eh_tl_guid_format(g, text);
    KT_EXPECT_STR(text, "2746d80c-73c2-5ea6-191c-12d017e8c111");
    free(name);
}

/* Ill-formed UTF-8 is refused wherever it is, also after a multi-code-point mapping. */
static void test_ill_formed(void)
{
    static const char *const bad[] = {
        "\xff",             /* never a UTF-8 byte */
        "\xc3",             /* truncated */
        "\xc0\xaf",         /* overlong '/' */
        "\xed\xa0\x80",     /* surrogate U+D800 */
        "\xf4\x90\x80\x80", /* above U+10FFFF */
        "\xc3\x9f\x80",     /* ß then a lone continuation byte */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uint8_t g[16];
        KT_EXPECT_EQ(eh_tl_guid_from_name(bad[i], strlen(bad[i]), g), EINVAL);
    }
}

KT_MAIN(KT_CASE(test_rust_vectors), KT_CASE(test_worst_expansion), KT_CASE(test_ill_formed))
