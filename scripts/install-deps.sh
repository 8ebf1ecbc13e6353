#!/bin/sh
# install-deps.sh - installs every Debian package vmmprof needs.
#
#   scripts/install-deps.sh          what building and running needs
#   scripts/install-deps.sh --test   also what the test suite needs
#                                    (sanitizers, fuzzing, the QEMU testbed)
#   scripts/install-deps.sh --demo   also what `scripts/run.sh --demo-vm`
#                                    needs (QEMU, busybox, cpio)
#   scripts/install-deps.sh --libvirt  also what the libvirt testbed tier
#                                    (tests/tiers/vm-libvirt.sh) needs: libvirt's
#                                    daemons and virsh, QEMU; the tier runs this
#                                    itself and skips when it fails
#
# Does nothing when every package is present; uses sudo when not root.
set -eu

BUILD_PKGS="gcc make pkg-config libc6-dev libpfm4-dev libhwloc-dev libnuma-dev
libsqlite3-dev libncurses-dev libjansson-dev libmicrohttpd-dev libcurl4-gnutls-dev nettle-dev"
TEST_PKGS="python3 curl openssl prometheus groff-base chromium clang libclang-rt-14-dev tmux procps util-linux linux-perf
cpio busybox-static qemu-system-x86 qemu-system-arm qemu-utils
debootstrap
gcc-aarch64-linux-gnu libc6-dev-arm64-cross
libpfm4-dev:arm64 libhwloc-dev:arm64 libnuma-dev:arm64"
DEMO_PKGS="cpio busybox-static qemu-system-x86 file"
LIBVIRT_PKGS="libvirt-daemon-system libvirt-clients libvirt-daemon-driver-qemu
cpio busybox-static qemu-system-x86 file python3"

want=$BUILD_PKGS
if [ "${1:-}" = "--test" ]; then
	want="$BUILD_PKGS $TEST_PKGS"
elif [ "${1:-}" = "--demo" ]; then
	want="$BUILD_PKGS $DEMO_PKGS"
elif [ "${1:-}" = "--libvirt" ]; then
	want="$BUILD_PKGS $LIBVIRT_PKGS"
elif [ $# -gt 0 ]; then
	echo "usage: $0 [--test|--demo|--libvirt]" >&2
	exit 2
fi

missing=""
for p in $want; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing="$missing $p"
	fi
done
[ -z "$missing" ] && exit 0

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
	SUDO=sudo
fi
echo "install-deps: installing:$missing" >&2
export DEBIAN_FRONTEND=noninteractive
# the aarch64 testbed guest's cross build needs arm64 -dev packages
case $missing in
*:arm64*)
	if [ "$(dpkg --print-architecture)" != arm64 ] &&
	   ! dpkg --print-foreign-architectures | grep -qx arm64; then
		$SUDO dpkg --add-architecture arm64
	fi
	;;
esac
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
