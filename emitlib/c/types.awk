# SPDX-License-Identifier: MIT
# descriptions/types.txt as the C table eh_types[] of eh_types.h, the field types libdesc
# (emitlib/c) and tools/ehdescribe.c name fields by: awk -f types.awk types.txt > eh_types.h.
# Made by tools/build.mk for make's programs and by emitlib/c/build-lib for the emitters
# built against a checkout. The encoding and format names are eventheader_wire.h's
# constants in lower case, so the compiler checks every name; unit "ptr" is the pointer size.
BEGIN {
    print "/* Made from descriptions/types.txt by emitlib/c/types.awk. */"
    print "static const struct eh_type_row { const char *name; unsigned char encoding, format; unsigned unit; } eh_types[] = {"
}
/^#/ || !NF { next }
NF != 4 {
    print FILENAME ":" FNR ": expected: name encoding format unit" > "/dev/stderr"
    exit 1
}
{
    printf "    {\"%s\", EH_ENC_%s, EH_FMT_%s, %s},\n", $1, toupper($2), toupper($3), $4 == "ptr" ? "sizeof(void *)" : $4
}
END { print "};" }
