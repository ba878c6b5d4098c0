# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# vm/arch.sh: sourced by vm/build-kernel, vm/run, vm/rootfs, vm/rust-std, emitlib/build.sh
# and .ci/run. `arch_load NAME` reads NAME's row of vm/arches into arch_<column> for every
# column of the table's header line (arch_name, arch_karch, arch_cross (empty for the
# host's gcc), arch_target, arch_image, arch_deb, arch_qemu, arch_machine, arch_cpu (empty
# for the machine's default), arch_console, arch_p9dev, arch_rust, arch_cold); `arch_field
# NAME COLUMN` prints one cell. Columns are found by name, so a new one breaks no reader;
# an unknown name or column is an error that lists the known ones.
arch_table="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/arches"
# The cells arch_load sets (by the header's names, in any order), declared for shellcheck.
# shellcheck disable=SC2034
arch_name='' arch_karch='' arch_cross='' arch_target='' arch_image='' arch_deb='' arch_qemu=''
# shellcheck disable=SC2034
arch_machine='' arch_cpu='' arch_console='' arch_p9dev='' arch_rust='' arch_cold=''

arch_names() { awk '!/^[[:space:]]*(#|$)/ { print $1 }' "$arch_table"; }

# The header line: `# name karch ...`, the last comment line that starts with `# name `.
arch_columns() { awk '/^# name / { sub(/^# /, ""); $1 = $1; h = $0 } END { print h }' "$arch_table"; }

arch_load() {
    local row col i=0
    local -a cols cells
    row=$(awk -v n="$1" '!/^[[:space:]]*(#|$)/ && $1 == n' "$arch_table")
    if [[ -z "$row" ]]; then
        printf 'error: KERNEL_ARCH=%s is not a row of vm/arches (known: %s)\n' "$1" "$(arch_names | tr '\n' ' ')" >&2
        return 1
    fi
    read -r -a cols <<<"$(arch_columns)"
    read -r -a cells <<<"$row"
    if [[ ${#cols[@]} -ne ${#cells[@]} ]]; then
        printf 'error: vm/arches row %s has %d cells for %d columns (%s)\n' "$1" "${#cells[@]}" "${#cols[@]}" "${cols[*]}" >&2
        return 1
    fi
    for col in "${cols[@]}"; do
        printf -v "arch_$col" '%s' "${cells[i]}"
        i=$((i + 1))
    done
    [[ "$arch_cross" != - ]] || arch_cross=
    [[ "$arch_cpu" != - ]] || arch_cpu=
}

# arch_field NAME COLUMN: one cell of the table (in a subshell: the caller's arch_* stay).
arch_field() {
    local name=$1 col=$2
    if ! arch_columns | tr ' ' '\n' | grep -qx -- "$col"; then
        printf 'error: vm/arches has no column %s (columns: %s)\n' "$col" "$(arch_columns)" >&2
        return 1
    fi
    (arch_load "$name" && var=arch_$col && printf '%s\n' "${!var}")
}

# The host's own architecture: its guest runs the host's userland over 9p.
arch_is_host() { [[ "$1" == "$(uname -m)" ]]; }
