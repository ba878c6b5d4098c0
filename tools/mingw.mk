# SPDX-License-Identifier: MIT
# tools/windows/ for Windows (`make VARIANT=mingw`): etwcapture.exe, a real ETW session
# to a .tlcap file; it decodes events with TDH (-ltdh).
ifeq ($(VARIANT),mingw)

WIN_ETWCAPTURE := $(B)/bin/etwcapture.exe

$(WIN_ETWCAPTURE): $(B)/obj/tools/windows/etwcapture.o $(B)/obj/tools/windows/etw_record.o \
                   $(WIN_EHD_LIB) $(WIN_EH_LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(WIN_LDLIBS) -ltdh

windows-build: $(WIN_ETWCAPTURE)

endif
