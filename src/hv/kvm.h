/* kvm.h - the KVM/QEMU adapter's parsers, exposed for tests */
#ifndef VP_HV_KVM_H
#define VP_HV_KVM_H

#include <stdbool.h>
#include <stddef.h>

/* A QEMU system emulator by its argv[0] or comm. */
bool kvm_is_qemu(const char *argv0, const char *comm);
/* The guest name in a -name option value ("guest=web1,debug-threads=on"); heap or NULL. */
char *kvm_name_from_opt(const char *opt);
/* The guest name from a whole command line; heap or NULL. */
char *kvm_name_from_cmdline(char *const *argv, size_t argc);
/* The VM name in a libvirt cgroup path (systemd or cgroupfs layout); heap or NULL. */
char *kvm_name_from_cgroup(const char *path);
/* The VM's cgroup from a thread's: libvirt's emulator/vcpuN/iothreadN leaf and "libvirt" dropped; heap. */
char *kvm_vm_cgroup(const char *thread_cgroup);
/*
 * What libvirt's files under root say of domain name: *persistent 1 when
 * its configuration /etc/libvirt/qemu/NAME.xml exists, 0 when that
 * directory exists without it (a transient domain), -1 when the directory
 * is not there (unknown); *restrictive 1 when the running domain's status
 * /run/libvirt/qemu/NAME.xml has <numatune><memory mode='restrictive'>, 0
 * for another mode or none (strict, libvirt's default), -1 unreadable.
 */
void kvm_libvirt_domain(const char *root, const char *name, int *persistent, int *restrictive);

#endif
