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
/*
 * The PCI addresses passed through (VFIO) in a command line: "-device
 * vfio-pci,host=0000:03:00.0", "host=03:00.0" (PCI domain 0000), "sysfsdev=
 * /sys/bus/pci/devices/0000:03:00.0", and libvirt's JSON form '-device
 * {"driver":"vfio-pci","host":"0000:03:00.0",...}'.  Heap array of *n
 * normalised "DDDD:BB:SS.F" strings (free each and the array), NULL none.
 */
char **kvm_vfio_from_cmdline(char *const *argv, size_t argc, size_t *n);
/*
 * The guest's virtual NUMA nodes in a command line: each "-numa node,nodeid=
 * N,cpus=A-B[,cpus=C],memdev=ID" (or legacy mem=SIZE) with the size=,
 * policy= and host-nodes= of the "-object memory-backend-*,id=ID,..." it
 * names (also libvirt's JSON -object).  Heap array of *n sorted by id
 * (hv_vnodes_free()), NULL none; mem_node is left for numa_maps.
 */
struct hv_vnode;
struct hv_vnode *kvm_vnuma_from_cmdline(char *const *argv, size_t argc, size_t *n);
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
/*
 * The CPUs vCPU vcpu of a domain's XML is pinned to (heap): the cpuset of its
 * <vcpupin vcpu='V' cpuset='X'/> in <cputune>, else the cpuset of <vcpu>
 * (every vCPU's default); NULL when the XML pins it nowhere (libvirt then
 * lets it run on every host CPU).
 */
char *kvm_libvirt_vcpupin_xml(const char *xml, int vcpu);
/*
 * The same from persistent domain name's configuration
 * /etc/libvirt/qemu/NAME.xml under root: 0 with *cpus (NULL: not pinned),
 * -1 when that file cannot be read (transient, or not libvirt's).
 */
int kvm_libvirt_config_vcpupin(const char *root, const char *name, int vcpu, char **cpus);
/*
 * The IOThread ids of running domain name from its status
 * /run/libvirt/qemu/NAME.xml: the <iothread id='N'/> of <iothreadids>, else
 * 1..<iothreads>N</iothreads> (libvirt numbers them from 1 then); at most
 * max of them in ids.  Returns how many (0: none), -1 when unreadable.
 */
int kvm_libvirt_iothreads(const char *root, const char *name, int *ids, int max);
/* The same from the XML text. */
int kvm_libvirt_iothreads_xml(const char *xml, int *ids, int max);
/*
 * The host thread of IOThread id of QEMU process pid under root: QEMU names
 * an IOThread's thread "IO " and its object id, which libvirt makes
 * "iothread" and the id (and starts QEMU with debug-threads=on).  -1 when no
 * thread of pid is so named, when two are, or when the name is longer than
 * the 15 bytes the kernel keeps (ids from 10000: "IO iothread12345" reads
 * "IO iothread1234", which is IOThread 1234's).
 */
int kvm_qemu_iothread_tid(const char *root, int pid, int id);
/*
 * The state in libvirt's status of a running domain (the <domstatus
 * state='paused' reason='user' pid='N'> that opens /run/libvirt/qemu/NAME.xml):
 * 1 paused (state paused or pmsuspended), 0 another state, -1 no domstatus
 * or (pid > 0) one of another process.  what gets "libvirt domain state
 * 'S' (R)".
 */
int kvm_libvirt_paused(const char *xml, int pid, char *what, size_t size);
/*
 * The text of the first element TAG (e.g. "nova:name", "uuid") in a libvirt
 * domain XML, with XML's five predefined entities and numeric character
 * references decoded; heap, or NULL when absent or empty.
 */
char *kvm_xml_text(const char *xml, const char *tag);
/*
 * The name users know a VM by, where an orchestrator names the libvirt
 * domain itself: OpenStack Nova's instance name (<nova:name> in the domain's
 * <metadata>, the domain being "instance-0000000a"), or KubeVirt's VMI
 * name (KubeVirt names the domain NAMESPACE_VMI and runs QEMU in a pod
 * under the kubepods cgroup).  xml (may be NULL) is the domain's libvirt
 * XML, cgroup (may be NULL) the VM's cgroup path.  Returns the alias (heap)
 * and its source in *source (heap), or NULL.
 */
char *kvm_vm_alias(const char *name, const char *xml, const char *cgroup, char **source);
/*
 * The QMP socket a QEMU command line names (-qmp unix:PATH,..., or a
 * -chardev socket,path=PATH that a -mon mode=control uses); heap or NULL.
 */
char *kvm_qmp_socket(char *const *argv, size_t argc);
/*
 * QMP's query-status over the unix socket path (under root), at most
 * timeout_ms in all: 1 paused (running false), 0 running, -1 not known
 * (why in what: no answer, another client holds the monitor, ...);
 * otherwise what gets "QMP query-status 'S'".
 */
int kvm_qmp_paused(const char *root, const char *path, int timeout_ms, char *what, size_t size);

#endif
