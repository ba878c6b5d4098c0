# SPDX-License-Identifier: MIT
# tools/standin/user_events_standin.c is an LD_PRELOAD stand-in for tracefs'
# user_events_data: a program that talks to user_events writes its events into a
# capture file (.dat) instead, with EHCONF_STANDIN_CAPTURE=file. Built from -fPIC
# objects in $(B)/pic/ (mk/install.mk's rule and dependency files: this fragment
# comes after it); tools/standin/README.md.
# It sees libeventheader's public include/ only (the raw ABI header), nothing else.
# Not for mingw: there is no LD_PRELOAD, and no user_events, on Windows.
ifneq ($(VARIANT),mingw)

INC.tools/standin := $(EH_INC)
STANDIN_SO := $(B)/lib/libuser_events_standin.so
STANDIN_SRCS := tools/standin/user_events_standin.c
STANDIN_OBJS := $(call pic_objs,$(STANDIN_SRCS))

# -ldl for the glibc versions before 2.34, where dlsym() lived there.
$(STANDIN_SO): $(STANDIN_OBJS)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -shared -o $@ $^ -ldl -lpthread

# Its unit test, tests/standin/test_standin.c. tests/build.mk takes it for a unit test
# too (tests/*/test_*.c) and `make unit` runs it; this rule replaces that one's link
# (the test needs neither library) and builds the stand-in it preloads.
STANDIN_TEST := $(B)/tests/standin/test_standin
$(STANDIN_TEST): $(B)/obj/tests/standin/test_standin.o | $(STANDIN_SO)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ -ldl -lpthread

ALL_TARGETS += $(STANDIN_SO) $(STANDIN_TEST)
endif
