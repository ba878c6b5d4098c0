# SPDX-License-Identifier: MIT
# libeventheader for Windows: `make VARIANT=mingw` (mingw-w64) builds
# $(B)/lib/libeventheader-win.a from the portable sources, with the ETW backend in
# place of user_events. harness/kernel/windows.mk runs what links against it under wine.
ifeq ($(VARIANT),mingw)

# mingw-w64 has no <sys/uio.h>; compat/ supplies struct iovec for eh_internal.h.
INC.lib/eventheader += -Ilib/eventheader/compat

# winpthreads defines pthread_atfork(F1,F2,F3) as 0 (Windows has no fork), so the
# atfork handlers of provider.c are unused there: that warning only, for that file only.
$(B)/obj/lib/eventheader/src/provider.o: CFLAGS += -Wno-unused-function

# What a program linked with it needs: static (no mingw DLLs beside the .exe under
# wine), winpthreads, advapi32 for EventRegister / EventWriteTransfer.
WIN_LDLIBS := -static -lpthread -ladvapi32

# Linux-only sources: user_events (ioctl) and the .dat capture (writev).
WIN_EH_SRCS := $(filter-out lib/eventheader/src/backend_user_events.c \
                            lib/eventheader/src/backend_capture.c, \
                            $(wildcard lib/eventheader/src/*.c))
WIN_EH_LIB := $(B)/lib/libeventheader-win.a

$(WIN_EH_LIB): $(call objs,$(WIN_EH_SRCS))
	@mkdir -p $(@D)
	rm -f $@ && x86_64-w64-mingw32-ar rcs $@ $^

windows-build: $(WIN_EH_LIB)

endif
