# lib.sh - shell functions that build and run QEMU guests from Debian
# packages only: a Debian kernel fetched with apt-get download and unpacked
# with dpkg -x, a cpio initramfs around busybox-static, ELF programs copied in
# with the shared libraries they need, and a guest run with a time limit whose
# serial console carries machine-readable "VMTEST" result lines.
#
# Sourced, from the repository's top directory, by tests/tiers/vm-testbed.sh
# and by other tiers (the Xen dom0 tier) that need the same pieces.  POSIX sh;
# every function returns non-zero on failure and says why on stderr.
#
# Environment:
#   VP_VM_CACHE           where downloads and unpacked kernels are kept
#                         (default tests/vm/cache, gitignored)
#   VP_VM_KERNEL_VERSION  kernel ABI name without the arch suffix, e.g.
#                         6.1.0-57 (default: what linux-image-ARCH depends on)

VP_VM_CACHE=${VP_VM_CACHE:-$(pwd)/tests/vm/cache}

vm_say() { echo "vm: $*" >&2; }

# vm_debarch ARCH: the Debian architecture of a QEMU/uname one.
vm_debarch() {
	case $1 in
	x86_64 | amd64) echo amd64 ;;
	aarch64 | arm64) echo arm64 ;;
	*) vm_say "unknown architecture '$1'"; return 1 ;;
	esac
}

# vm_multiarch ARCH: the GNU triplet Debian uses for library directories.
vm_multiarch() {
	case $(vm_debarch "$1") in
	amd64) echo x86_64-linux-gnu ;;
	arm64) echo aarch64-linux-gnu ;;
	*) return 1 ;;
	esac
}

# vm_foreign_ready ARCH: true when apt knows the packages of ARCH (the host's
# own architecture, or one added with dpkg --add-architecture).
vm_foreign_ready() {
	da=$(vm_debarch "$1") || return 1
	[ "$da" = "$(dpkg --print-architecture)" ] && return 0
	dpkg --print-foreign-architectures | grep -qx "$da"
}

# vm_deb_fetch PKG[:ARCH]: downloads a package's .deb into the cache (once)
# and prints its path.
vm_deb_fetch() {
	dir=$VP_VM_CACHE/debs
	mkdir -p "$dir" || return 1
	base=${1%%:*}
	# a cached file for this package name (the version is in the file name)
	case $1 in
	*:*) a=${1#*:} ;;
	*) a="" ;;
	esac
	for f in "$dir/${base}_"*"_${a:-*}.deb"; do
		if [ -s "$f" ]; then
			echo "$f"
			return 0
		fi
	done
	# apt drops privileges to _apt, which may not write here: that only
	# costs a warning, the download goes on as the caller
	if ! (cd "$dir" && apt-get download -q "$1" >/dev/null 2>"$dir/.apt.err"); then
		vm_say "apt-get download '$1' failed: $(tail -n 1 "$dir/.apt.err")"
		return 1
	fi
	for f in "$dir/${base}_"*"_${a:-*}.deb"; do
		if [ -s "$f" ]; then
			echo "$f"
			return 0
		fi
	done
	vm_say "apt-get download '$1' left no .deb in '$dir'"
	return 1
}

# vm_kernel_version ARCH: the kernel ABI name (6.1.0-57-amd64) to use.
vm_kernel_version() {
	da=$(vm_debarch "$1") || return 1
	if [ -n "${VP_VM_KERNEL_VERSION:-}" ]; then
		echo "$VP_VM_KERNEL_VERSION-$da"
		return 0
	fi
	v=$(apt-cache depends "linux-image-$da:$da" 2>/dev/null |
		sed -n "s/^ *Depends: linux-image-\([0-9][^:]*-$da\).*/\1/p" | head -n 1)
	if [ -z "$v" ]; then
		# offline: whatever kernel is already unpacked in the cache
		v=$(ls -d "$VP_VM_CACHE"/kernel-*-"$da" 2>/dev/null | tail -n 1)
		v=${v##*/kernel-}
	fi
	if [ -z "$v" ]; then
		vm_say "no kernel for '$da': apt-cache knows no linux-image-$da (run apt-get update; for a foreign arch dpkg --add-architecture $da first)"
		return 1
	fi
	echo "$v"
}

# vm_kernel ARCH: fetches and unpacks the Debian kernel (once) and prints the
# directory it is unpacked in; the image is DIR/boot/vmlinuz-VERSION and its
# modules are under DIR/lib/modules/VERSION.
vm_kernel() {
	v=$(vm_kernel_version "$1") || return 1
	da=$(vm_debarch "$1")
	dir=$VP_VM_CACHE/kernel-$v
	if [ ! -s "$dir/boot/vmlinuz-$v" ]; then
		deb=$(vm_deb_fetch "linux-image-$v:$da") || return 1
		rm -rf "$dir.tmp"
		dpkg -x "$deb" "$dir.tmp" || { vm_say "dpkg -x '$deb' failed"; return 1; }
		rm -rf "$dir"
		mv "$dir.tmp" "$dir" || return 1
	fi
	echo "$dir"
}

# vm_qemu_src: fetches (once) the installed QEMU's source package from
# Debian's archive and prints the directory of the two files the TCG plugin
# test needs: include/qemu/qemu-plugin.h (the plugin API, in no binary
# package) and plugins/api.c (what its addresses mean).  apt's own state
# stays untouched: a private deb-src list and list directory in the cache.
vm_qemu_src() {
	dir=$VP_VM_CACHE/qemu-src
	src=$(ls -d "$dir"/qemu-*/ 2>/dev/null | head -n 1)
	if [ -n "$src" ] && [ -s "$src/include/qemu/qemu-plugin.h" ] && [ -s "$src/plugins/api.c" ]; then
		echo "${src%/}"
		return 0
	fi
	mkdir -p "$dir/lists/partial" || return 1
	uri=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n 1)
	uri=${uri:-http://deb.debian.org/debian}
	printf 'deb-src %s bookworm main\ndeb-src %s-security bookworm-security main\n' \
		"$uri" "$uri" >"$dir/sources.list"
	set -- -o Dir::Etc::sourcelist="$dir/sources.list" -o Dir::Etc::sourceparts=- \
		-o Dir::State::Lists="$dir/lists"
	if ! (cd "$dir" && apt-get -q "$@" update >"$dir/.apt.log" 2>&1 &&
		apt-get -q "$@" source --download-only qemu >>"$dir/.apt.log" 2>&1); then
		vm_say "apt-get source --download-only qemu failed: $(tail -n 1 "$dir/.apt.log")"
		return 1
	fi
	orig=$(ls "$dir"/qemu_*.orig.tar.* 2>/dev/null | head -n 1)
	if [ -z "$orig" ] || ! tar -C "$dir" -xf "$orig" --wildcards \
		'*/include/qemu/qemu-plugin.h' '*/plugins/api.c'; then
		vm_say "no include/qemu/qemu-plugin.h and plugins/api.c in '${orig:-the qemu source package}'"
		return 1
	fi
	src=$(ls -d "$dir"/qemu-*/ 2>/dev/null | head -n 1)
	echo "${src%/}"
}

# vm_kernel_image KDIR: the bootable image in an unpacked kernel.
vm_kernel_image() {
	ls "$1"/boot/vmlinuz-* 2>/dev/null | head -n 1
}

# vm_root_new DIR: an empty initramfs root with the usual directories.
vm_root_new() {
	rm -rf "$1"
	mkdir -p "$1" && (cd "$1" && mkdir -p bin sbin etc proc sys dev tmp run lib usr/bin usr/lib root)
}

# vm_busybox ROOT ARCH: puts busybox-static of ARCH in ROOT/bin/busybox (with
# a /bin/sh link); the guest's init runs "busybox --install -s" for the rest.
vm_busybox() {
	da=$(vm_debarch "$2") || return 1
	if [ "$da" = "$(dpkg --print-architecture)" ] && [ -x /bin/busybox ] &&
	   file -L /bin/busybox 2>/dev/null | grep -q 'statically linked'; then
		cp /bin/busybox "$1/bin/busybox" || return 1
	else
		bdir=$VP_VM_CACHE/busybox-$da
		if [ ! -x "$bdir/bin/busybox" ]; then
			deb=$(vm_deb_fetch "busybox-static:$da") || return 1
			rm -rf "$bdir"
			dpkg -x "$deb" "$bdir" || return 1
		fi
		cp "$bdir/bin/busybox" "$1/bin/busybox" || return 1
	fi
	ln -sf busybox "$1/bin/sh"
}

# vm_elf_interp FILE: the program interpreter (dynamic loader) of an ELF
# file, empty for a static one.
vm_elf_interp() {
	readelf -lW "$1" 2>/dev/null | sed -n 's/.*Requesting program interpreter: \(.*\)]$/\1/p'
}

# vm_find_lib ARCH NAME: the path of a shared library of ARCH on this host.
vm_find_lib() {
	ma=$(vm_multiarch "$1") || return 1
	for d in "/lib/$ma" "/usr/lib/$ma" "/usr/$ma/lib" /lib64 /usr/lib64; do
		if [ -e "$d/$2" ]; then
			echo "$d/$2"
			return 0
		fi
	done
	vm_say "shared library '$2' for '$1' not found (install its :$(vm_debarch "$1") package)"
	return 1
}

# vm_copy_elf ROOT ARCH FILE [DEST]: copies an ELF program into ROOT (at
# DEST, default /bin/NAME) with its loader and every shared library it needs,
# found by walking DT_NEEDED with readelf (which reads any architecture, so
# this works for cross-built programs that ldd cannot run).
vm_copy_elf() {
	root=$1
	arch=$2
	src=$3
	dest=${4:-/bin/$(basename "$3")}
	mkdir -p "$root$(dirname "$dest")" || return 1
	cp -L "$src" "$root$dest" || return 1
	interp=$(vm_elf_interp "$src")
	[ -z "$interp" ] && return 0
	ma=$(vm_multiarch "$arch") || return 1
	mkdir -p "$root$(dirname "$interp")" "$root/lib/$ma" || return 1
	[ -e "$root$interp" ] || cp -L "$interp" "$root$interp" 2>/dev/null ||
		cp -L "$(vm_find_lib "$arch" "$(basename "$interp")")" "$root$interp" || return 1
	todo=$src
	while [ -n "$todo" ]; do
		next=""
		for f in $todo; do
			for n in $(readelf -dW "$f" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p'); do
				[ -e "$root/lib/$ma/$n" ] && continue
				p=$(vm_find_lib "$arch" "$n") || return 1
				cp -L "$p" "$root/lib/$ma/$n" || return 1
				next="$next $p"
			done
		done
		todo=$next
	done
}

# vm_kmod_add ROOT KDIR MODULE...: copies kernel modules (by name, e.g.
# xen-privcmd) and the modules they depend on from an unpacked kernel into
# ROOT/lib/modules, decompressed, and appends them in load order to
# ROOT/lib/modules/load-order; the guest's init insmods that list.
vm_kmod_add() {
	root=$1
	kdir=$2
	shift 2
	mdir=$(ls -d "$kdir"/lib/modules/* 2>/dev/null | head -n 1)
	[ -n "$mdir" ] || { vm_say "no modules in '$kdir'"; return 1; }
	mkdir -p "$root/lib/modules" || return 1
	touch "$root/lib/modules/load-order"
	for m in "$@"; do
		# modules.dep names files with - or _ as the module's name says
		pat=$(echo "$m" | sed 's/[-_]/[-_]/g')
		line=$(grep -E "(^|/)$pat\.ko(\.[a-z]+)?:" "$mdir/modules.dep" | head -n 1)
		[ -n "$line" ] || { vm_say "module '$m' not in '$mdir/modules.dep'"; return 1; }
		self=${line%%:*}
		deps=${line#*:}
		# dependencies first, deepest last in modules.dep: load them reversed
		for f in $(echo $deps | tr ' ' '\n' | sed '1!G;h;$!d') $self; do
			name=$(basename "$f")
			name=${name%.xz}
			name=${name%.zst}
			name=${name%.gz}
			grep -qx "$name" "$root/lib/modules/load-order" && continue
			case $f in
			*.xz) xz -dc "$mdir/$f" >"$root/lib/modules/$name" ;;
			*.zst) zstd -qdc "$mdir/$f" >"$root/lib/modules/$name" ;;
			*.gz) gzip -dc "$mdir/$f" >"$root/lib/modules/$name" ;;
			*) cp "$mdir/$f" "$root/lib/modules/$name" ;;
			esac || return 1
			echo "$name" >>"$root/lib/modules/load-order"
		done
	done
}

# vm_initramfs ROOT OUT: packs ROOT as a gzip'd newc cpio archive.
vm_initramfs() {
	(cd "$1" && find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0) | gzip -1 >"$2.tmp" &&
		mv "$2.tmp" "$2"
}

# vm_run LOG SECONDS QEMU-COMMAND...: runs a guest with its console in LOG,
# killing it after SECONDS.  Returns QEMU's status, 124 when it was killed.
vm_run() {
	log=$1
	secs=$2
	shift 2
	timeout -k 5 "$secs" "$@" </dev/null >"$log" 2>&1
}

# vm_start LOG SECONDS QEMU-COMMAND...: the same in the background (its
# process id in vm_pid), for a caller that acts while the guest runs.
vm_start() {
	log=$1
	secs=$2
	shift 2
	# emptied here, not only by the background job's redirection: under load
	# that runs late, and a caller's vm_wait_for read the last run's console
	# (its VMTEST-HOLD) before this run's QEMU existed
	: >"$log"
	timeout -k 5 "$secs" "$@" </dev/null >>"$log" 2>&1 &
	vm_pid=$!
}

# vm_wait_for LOG PATTERN SECONDS: waits until a console line matches
# PATTERN (true) or the guest started by vm_start has ended or SECONDS have
# passed (false).
vm_wait_for() {
	end=$(($(date +%s) + $3))
	while [ "$(date +%s)" -lt "$end" ]; do
		tr -d '\r' <"$1" 2>/dev/null | grep -q -- "$2" && return 0
		kill -0 "$vm_pid" 2>/dev/null || return 1
		sleep 0.5
	done
	return 1
}

# vm_wait: waits for the guest started by vm_start; its status, 124 when it
# was killed at its time limit.
vm_wait() {
	wait "$vm_pid"
}

# vm_results LOG NAME: turns the guest's VMTEST lines into this tier's
# "ok|FAIL|skip NAME/CHECK" lines and adds the counts to vm_pass, vm_fail,
# vm_skip.  A guest that never printed "VMTEST end" counts as one failure.
vm_pass=0
vm_fail=0
vm_skip=0
vm_results() {
	tr -d '\r' <"$1" | grep '^VMTEST ' >"$1.results" || true
	while read -r _ verdict check detail; do
		case $verdict in
		ok) vm_pass=$((vm_pass + 1)); echo "ok   $2/$check${detail:+ ($detail)}" ;;
		fail) vm_fail=$((vm_fail + 1)); echo "FAIL $2/$check: $detail" ;;
		skip) vm_skip=$((vm_skip + 1)); echo "skip $2/$check: $detail" ;;
		esac
	done <"$1.results"
	if ! grep -q '^VMTEST end' "$1.results"; then
		vm_fail=$((vm_fail + 1))
		echo "FAIL $2/guest: did not finish (hung, crashed or killed at the time limit); console:"
		tr -d '\r' <"$1" | tail -n 40 | sed 's/^/|  /'
	fi
}
