# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# vm/arch.sh: sourced by vm/build-kernel, vm/run and vm/rootfs. `arch_load NAME` reads
# NAME's row of vm/arches into arch_name, arch_karch, arch_cross (empty for the host's
# gcc), arch_target, arch_image, arch_deb, arch_qemu, arch_machine, arch_cpu (empty for
# the machine's default), arch_console, arch_p9dev; an unknown name is an error that
# lists the known ones.
arch_table="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/arches"

arch_names() { awk '!/^[[:space:]]*(#|$)/ { print $1 }' "$arch_table"; }

arch_load() {
    local row
    row=$(awk -v n="$1" '!/^[[:space:]]*(#|$)/ && $1 == n' "$arch_table")
    if [[ -z "$row" ]]; then
        printf 'error: KERNEL_ARCH=%s is not a row of vm/arches (known: %s)\n' "$1" "$(arch_names | tr '\n' ' ')" >&2
        return 1
    fi
    # shellcheck disable=SC2034  # read by the scripts that source this file
    read -r arch_name arch_karch arch_cross arch_target arch_image arch_deb arch_qemu \
        arch_machine arch_cpu arch_console arch_p9dev <<<"$row"
    [[ "$arch_cross" != - ]] || arch_cross=
    [[ "$arch_cpu" != - ]] || arch_cpu=
}

# The host's own architecture: its guest runs the host's userland over 9p.
arch_is_host() { [[ "$1" == "$(uname -m)" ]]; }
