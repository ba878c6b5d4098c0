# SPDX-License-Identifier: MIT
# `make install` / `make uninstall` / `make test-install`.
#
#   make install [PREFIX=/usr/local] [DESTDIR=] [VARIANT=gcc]
#
# installs, under $(DESTDIR)$(PREFIX):
#   lib/libeventheader.{a,so.$(EHCONF_VERSION)}, lib/libehdecode.{a,so.$(EHCONF_VERSION)}
#     with the sonames lib*.so.$(EHCONF_SOVERSION) and the lib*.so links for -l; the shared
#     libraries are built from -fPIC objects ($(B)/pic/) and export only their public API
#     (mk/version-script.sh: the symbols named in the public headers; the rest is local),
#   include/: the public headers of both libraries (lib/eventheader/include, lib/decode/include),
#   lib/pkgconfig/eventheader.pc, ehdecode.pc (mk/*.pc.in),
#   bin/ehdecode, bin/ehregister (linked statically with the libraries),
#   share/man/man1/ehdecode.1, ehregister.1 (man/).
EHCONF_VERSION := 0.1.0
EHCONF_SOVERSION := 0
PREFIX ?= /usr/local
DESTDIR ?=
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MANDIR ?= $(PREFIX)/share/man
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
INSTALL ?= install
# In the .pc files, paths under PREFIX are written relative to ${prefix} (relocatable).
pc_path = $(if $(filter $(PREFIX)/%,$(1)),$${prefix}/$(patsubst $(PREFIX)/%,%,$(1)),$(1))

# Position-independent objects of the library sources, for the shared libraries only
# (the static archives and everything linked with them keep the $(B)/obj objects).
pic_objs = $(patsubst %.c,$(B)/pic/%.o,$(1))
$(B)/pic/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(call src_inc,$<) -fPIC -MMD -MP -c -o $@ $<

EH_PIC_OBJS := $(call pic_objs,$(EH_LIB_SRCS))
EHD_PIC_OBJS := $(call pic_objs,$(EHD_LIB_SRCS))
EH_SO := $(B)/lib/libeventheader.so.$(EHCONF_VERSION)
EHD_SO := $(B)/lib/libehdecode.so.$(EHCONF_VERSION)
SHARED_LIBS := $(EH_SO) $(EHD_SO)

$(B)/lib/libeventheader.map: $(wildcard lib/eventheader/include/*.h) mk/version-script.sh $(EH_PIC_OBJS)
	@mkdir -p $(@D)
	mk/version-script.sh $(wildcard lib/eventheader/include/*.h) -- $(EH_PIC_OBJS) >$@.tmp && mv $@.tmp $@
$(B)/lib/libehdecode.map: $(wildcard lib/decode/include/*.h) mk/version-script.sh $(EHD_PIC_OBJS)
	@mkdir -p $(@D)
	mk/version-script.sh $(wildcard lib/decode/include/*.h) -- $(EHD_PIC_OBJS) >$@.tmp && mv $@.tmp $@

# $(1): the library's name (eventheader), $(2): its PIC objects.
define shared_lib_rule
$(B)/lib/lib$(1).so.$(EHCONF_VERSION): $$($(2)) $(B)/lib/lib$(1).map
	@mkdir -p $$(@D)
	$$(CC) $$(LDFLAGS) -shared -Wl,-soname,lib$(1).so.$(EHCONF_SOVERSION) \
	  -Wl,--version-script=$(B)/lib/lib$(1).map -Wl,--no-undefined -o $$@ $$($(2)) $$(LDLIBS)
	ln -sf lib$(1).so.$(EHCONF_VERSION) $(B)/lib/lib$(1).so.$(EHCONF_SOVERSION)
	ln -sf lib$(1).so.$(EHCONF_SOVERSION) $(B)/lib/lib$(1).so
endef
$(eval $(call shared_lib_rule,eventheader,EH_PIC_OBJS))
$(eval $(call shared_lib_rule,ehdecode,EHD_PIC_OBJS))

## shared-libs: build libeventheader.so and libehdecode.so of VARIANT (what make install installs)
shared-libs: $(SHARED_LIBS)

INSTALL_BINS := $(B)/bin/ehdecode $(B)/bin/ehregister
# The registries (*.def) too: ehd_readers.h builds on eh_transports.def.
INSTALL_HEADERS := $(wildcard lib/eventheader/include/*.h lib/eventheader/include/*.def \
                              lib/decode/include/*.h)
INSTALL_MANS := man/ehdecode.1 man/ehregister.1
INSTALL_PCS := eventheader ehdecode

## install: libraries (static and shared), headers, pkg-config files, ehdecode and ehregister with man pages (PREFIX, DESTDIR)
install: $(EH_LIB) $(EHD_LIB) $(SHARED_LIBS) $(INSTALL_BINS)
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR) \
	  $(DESTDIR)$(PKGCONFIGDIR) $(DESTDIR)$(MANDIR)/man1
	$(INSTALL) -m 644 $(EH_LIB) $(EHD_LIB) $(DESTDIR)$(LIBDIR)/
	$(INSTALL) -m 755 $(SHARED_LIBS) $(DESTDIR)$(LIBDIR)/
	for l in eventheader ehdecode; do \
	  ln -sf lib$$l.so.$(EHCONF_VERSION) $(DESTDIR)$(LIBDIR)/lib$$l.so.$(EHCONF_SOVERSION) && \
	  ln -sf lib$$l.so.$(EHCONF_SOVERSION) $(DESTDIR)$(LIBDIR)/lib$$l.so || exit 1; done
	$(INSTALL) -m 644 $(INSTALL_HEADERS) $(DESTDIR)$(INCLUDEDIR)/
	for p in $(INSTALL_PCS); do \
	  sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(call pc_path,$(LIBDIR))|' \
	      -e 's|@INCLUDEDIR@|$(call pc_path,$(INCLUDEDIR))|' \
	      -e 's|@VERSION@|$(EHCONF_VERSION)|' mk/$$p.pc.in >$(DESTDIR)$(PKGCONFIGDIR)/$$p.pc || exit 1; done
	$(INSTALL) -m 755 $(INSTALL_BINS) $(DESTDIR)$(BINDIR)/
	$(INSTALL) -m 644 $(INSTALL_MANS) $(DESTDIR)$(MANDIR)/man1/

## uninstall: remove what make install installed (same PREFIX and DESTDIR)
uninstall:
	rm -f $(foreach l,eventheader ehdecode,$(addprefix $(DESTDIR)$(LIBDIR)/lib$(l),.a .so .so.$(EHCONF_SOVERSION) .so.$(EHCONF_VERSION))) \
	  $(addprefix $(DESTDIR)$(INCLUDEDIR)/,$(notdir $(INSTALL_HEADERS))) \
	  $(foreach p,$(INSTALL_PCS),$(DESTDIR)$(PKGCONFIGDIR)/$(p).pc) \
	  $(addprefix $(DESTDIR)$(BINDIR)/,$(notdir $(INSTALL_BINS))) \
	  $(addprefix $(DESTDIR)$(MANDIR)/man1/,$(notdir $(INSTALL_MANS)))

## test-install: install into a temporary DESTDIR, build samples/ through pkg-config (static and shared), run and decode
test-install:
	mk/test-install.sh "$(MAKE)" $(VARIANT)

.PHONY: shared-libs install uninstall test-install

-include $(shell find $(B)/pic -name '*.d' 2>/dev/null)
