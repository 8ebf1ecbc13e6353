#!/bin/sh
# build.sh - builds (and caches under tests/vm/cache/xen/) what the Xen
# testbed boots: the Xen hypervisor as a multiboot ELF, Debian's kernel for
# dom0 and the domU, a debootstrap'ed dom0 root holding xen-utils-4.17 packed
# as a cpio, a busybox initramfs for the domU, and an overlay cpio with
# the dom0 init, the checks and a vmmprof build.  See REFERENCES.md §7.
#
# Sourced by tests/tiers/vm-xen.sh, or run directly:
#   sh tests/vm/xen/build.sh [BUILD_DIR]   prints the cache directory
#
# Everything but the overlay is cached: a second run only repacks the overlay
# (a few seconds).  Delete tests/vm/cache/xen/ to rebuild from scratch.  The
# kernel comes through tests/vm/lib.sh, whose cache (tests/vm/cache/debs,
# kernel-VERSION) the vm-testbed tier shares.

# Bump when the dom0 root's contents change in a way the key below misses.
XEN_ROOT_REV=2
XEN_INCLUDE="xen-utils-4.17,xen-hypervisor-4.17-amd64,busybox"

xen_repo=${xen_repo:-$(cd "$(dirname "$0")/../../.." 2>/dev/null && pwd)}
XEN_CACHE=${XEN_CACHE:-$xen_repo/tests/vm/cache/xen}
# the kernel download and unpacking, busybox and cpio packing are lib.sh's
VP_VM_CACHE=${VP_VM_CACHE:-$xen_repo/tests/vm/cache}
. "$xen_repo/tests/vm/lib.sh"

xen_log() { echo "vm-xen: $*" >&2; }

# xen_codename: the Debian release of this machine (dom0 is the same, so a
# host build of vmmprof runs there with the host's shared libraries).
xen_codename() {
	. /etc/os-release 2>/dev/null
	echo "${VERSION_CODENAME:-bookworm}"
}

# xen_mirror: the Debian mirror this machine's apt sources use for the main
# suite of CODENAME (one-line .list or deb822 .sources), so debootstrap goes
# where apt already goes.
xen_mirror() {
	cn=$(xen_codename)
	m=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
		awk -v cn="$cn" '$1 == "deb" { u = $2; if (u ~ /^\[/) { u = $3; s = $4 } else s = $3
			if (s == cn && u !~ /security/) { print u; exit } }')
	if [ -z "$m" ]; then
		m=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null | awk -v cn="$cn" '
			/^[[:space:]]*$/ { if (ok && uri != "") { print uri; exit } ok = 0; uri = "" ; next }
			/^URIs:/ { uri = $2 }
			/^Suites:/ { for (i = 2; i <= NF; i++) if ($i == cn) ok = 1 }
			END { if (ok && uri != "") print uri }' | grep -v security | head -n 1)
	fi
	echo "${m:-http://deb.debian.org/debian}"
}

# xen_fetch_kernel: Debian's amd64 kernel, downloaded and unpacked by
# tests/vm/lib.sh (vm_kernel: one cache with the vm-testbed tier), and the
# part of it the testbed boots copied to $XEN_CACHE/kernel/: vmlinuz, version
# and lib/modules/VER/kernel/drivers/xen for dom0.
xen_fetch_kernel() {
	if [ "$(id -u)" = 0 ] && ! apt-cache show linux-image-amd64 >/dev/null 2>&1; then
		# a fresh machine may have no package lists yet
		apt-get update -qq >/dev/null 2>&1
	fi
	kdir=$(vm_kernel x86_64) || return 1
	ver=${kdir##*/kernel-}
	if [ -s "$XEN_CACHE/kernel/vmlinuz" ] &&
	   [ "$(cat "$XEN_CACHE/kernel/version" 2>/dev/null)" = "$ver" ]; then
		return 0
	fi
	tmp=$(mktemp -d "$XEN_CACHE/.kernel.XXXXXX")
	mkdir -p "$tmp/k/lib/modules/$ver/kernel/drivers"
	if ! cp "$(vm_kernel_image "$kdir")" "$tmp/k/vmlinuz" ||
	   ! cp -r "$kdir/lib/modules/$ver/kernel/drivers/xen" "$tmp/k/lib/modules/$ver/kernel/drivers/"; then
		xen_log "no vmlinuz or xen modules in $kdir"
		rm -rf "$tmp"
		return 1
	fi
	echo "$ver" >"$tmp/k/version"
	rm -rf "$XEN_CACHE/kernel"
	mv "$tmp/k" "$XEN_CACHE/kernel"
	rm -rf "$tmp"
}

# xen_root_key: what the cached dom0 root was built from.
xen_root_key() {
	echo "rev=$XEN_ROOT_REV codename=$(xen_codename) mirror=$(xen_mirror) include=$XEN_INCLUDE"
}

# xen_build_root: debootstrap --variant=minbase with xen-utils and the
# hypervisor, the hypervisor taken out as xen.elf (so tools and hypervisor
# come from one release), docs, locales and apt lists dropped, packed as
# $XEN_CACHE/root.cpio.  Skipped when the cached key matches.
xen_build_root() {
	key=$(xen_root_key)
	if [ -s "$XEN_CACHE/root.cpio" ] && [ -s "$XEN_CACHE/xen.elf" ] &&
	   [ "$(cat "$XEN_CACHE/root.key" 2>/dev/null)" = "$key" ]; then
		return 0
	fi
	command -v debootstrap >/dev/null || { xen_log "debootstrap missing (scripts/install-deps.sh --test)"; return 1; }
	tmp=$(mktemp -d "$XEN_CACHE/.root.XXXXXX")
	xen_log "debootstrap $(xen_codename) from $(xen_mirror) (about 80 s)"
	if ! debootstrap --variant=minbase --include="$XEN_INCLUDE" \
		"$(xen_codename)" "$tmp/root" "$(xen_mirror)" >"$tmp/debootstrap.log" 2>&1; then
		tail -n 20 "$tmp/debootstrap.log" >&2
		rm -rf "$tmp"
		return 1
	fi
	r=$tmp/root
	gunzip -c "$r"/boot/xen-*-amd64.gz >"$tmp/xen.elf" || { rm -rf "$tmp"; return 1; }
	rm -rf "$r"/boot/* "$r"/usr/share/doc "$r"/usr/share/locale "$r"/usr/share/man \
		"$r"/usr/share/info "$r"/var/cache/apt/* "$r"/var/lib/apt/lists/* \
		"$r"/usr/lib/udev/hwdb.bin "$r"/usr/lib/udev/hwdb.d
	# uncompressed: gunzip in dom0 under TCG costs more than reading
	# 250 MB on the host
	(cd "$r" && find . | cpio -o -H newc --quiet) >"$tmp/root.cpio" ||
		{ rm -rf "$tmp"; return 1; }
	mv "$tmp/xen.elf" "$XEN_CACHE/xen.elf"
	mv "$tmp/root.cpio" "$XEN_CACHE/root.cpio"
	rm -f "$XEN_CACHE/root.files"
	echo "$key" >"$XEN_CACHE/root.key"
	rm -rf "$tmp"
}

# xen_build_domu: a busybox initramfs for the PV domU (lib.sh's vm_busybox:
# busybox-static, as the initramfs has no libraries): its init mounts proc
# and keeps both vCPUs busy, so they have run time and a current pCPU.
xen_build_domu() {
	tmp=$(mktemp -d "$XEN_CACHE/.domu.XXXXXX")
	vm_root_new "$tmp/r" && vm_busybox "$tmp/r" x86_64 &&
		cp "$xen_repo/tests/vm/xen/domu-init" "$tmp/r/init" && chmod 755 "$tmp/r/init" &&
		vm_initramfs "$tmp/r" "$XEN_CACHE/domu.cpio.gz"
	rc=$?
	rm -rf "$tmp"
	return $rc
}

# xen_copy_with_libs BIN DESTROOT DESTPATH: copies a dynamically linked
# program and every shared library ldd names that the root does not have.
xen_copy_with_libs() {
	mkdir -p "$2/$(dirname "$3")"
	cp "$1" "$2/$3" || return 1
	ldd "$1" | awk '/=> \// { print $3 } /^[[:space:]]*\/[^ ]*ld-linux/ { print $1 }' |
	while read -r lib; do
		# keep the root's own copy of libraries it ships (libc & co)
		[ -e "$2/$lib" ] && continue
		[ -n "$(xen_root_has "$lib")" ] && continue
		# merged /usr: the root's /lib and /lib64 are symlinks into usr/
		case $lib in /lib/* | /lib64/*) dst=/usr$lib ;; *) dst=$lib ;; esac
		mkdir -p "$2/$(dirname "$dst")"
		cp -L "$lib" "$2/$dst"
	done
}

# xen_root_has PATH: non-empty when the cached dom0 root holds PATH (the list
# of its files is kept next to the cpio).
xen_root_has() {
	[ -s "$XEN_CACHE/root.files" ] ||
		cpio -t --quiet <"$XEN_CACHE/root.cpio" 2>/dev/null |
			sed 's,^\./,/,; s,^\([^/]\),/\1,' >"$XEN_CACHE/root.files"
	p=$1
	# /lib is a symlink to usr/lib on a merged-/usr root
	grep -qxF -e "$p" -e "/usr$p" "$XEN_CACHE/root.files" && echo y
}

# xen_build_overlay VMMPROF: the small cpio appended to the root: /init, the
# checks, the xen modules, the domU kernel and initramfs, and vmmprof with
# the shared libraries the root lacks.  Rebuilt every run.
xen_build_overlay() {
	vm=$1
	ver=$(cat "$XEN_CACHE/kernel/version")
	tmp=$(mktemp -d "$XEN_CACHE/.overlay.XXXXXX")
	o=$tmp/o
	mkdir -p "$o/usr/lib/modules" "$o/vmtest" "$o/usr/local/bin"
	cp -r "$XEN_CACHE/kernel/lib/modules/$ver" "$o/usr/lib/modules/"
	cp "$xen_repo/tests/vm/xen/dom0-init" "$o/init"
	for f in checks.sh compare.py capture_root.py; do cp "$xen_repo/tests/vm/xen/$f" "$o/vmtest/"; done
	cp "$XEN_CACHE/kernel/vmlinuz" "$o/vmtest/vmlinuz"
	cp "$XEN_CACHE/domu.cpio.gz" "$o/vmtest/domu.cpio.gz"
	chmod 755 "$o/init" "$o/vmtest/checks.sh"
	if [ -n "$vm" ]; then
		xen_copy_with_libs "$vm" "$o" /usr/local/bin/vmmprof || { rm -rf "$tmp"; return 1; }
		# the built-in models where an installed binary looks (bin/../share)
		mkdir -p "$o/usr/local/share/vmmprof/models" &&
			cp "$xen_repo"/models/* "$o/usr/local/share/vmmprof/models/" ||
			{ rm -rf "$tmp"; return 1; }
	fi
	(cd "$o" && find . | cpio -o -H newc --quiet | gzip -1) >"$XEN_CACHE/overlay.cpio.gz" ||
		{ rm -rf "$tmp"; return 1; }
	rm -rf "$tmp"
	cat "$XEN_CACHE/root.cpio" "$XEN_CACHE/overlay.cpio.gz" >"$XEN_CACHE/dom0.cpio"
}

# xen_build_all VMMPROF: everything; prints nothing, returns non-zero on failure.
xen_build_all() {
	mkdir -p "$XEN_CACHE"
	xen_fetch_kernel && xen_build_root && xen_build_domu && xen_build_overlay "$1"
}

if [ "$(basename "$0")" = build.sh ]; then
	set -u
	xen_build_all "${1:+$1/vmmprof}" && echo "$XEN_CACHE"
fi
