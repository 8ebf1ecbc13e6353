#!/bin/sh
# t5015-vm-alias.sh - the names users know: OpenStack Nova's instance name beside the libvirt
# domain name, in `list vms` (text, JSON, pattern) and as a --vm NAME everywhere
. "$(dirname "$0")/lib.sh"

# host-libvirt-v2 with db-2 made a Nova instance: its libvirt status carries
# the metadata Nova writes (<nova:instance> in <metadata>, namespace 1.1)
nova_root() {
	cp -a "$VP_DATA/root/host-libvirt-v2" nova &&
	cat >nova/run/libvirt/qemu/db-2.xml <<-XML
	<domstatus state="running" reason="booted" pid="2000">
	  <domain type="kvm" id="2">
	    <name>db-2</name>
	    <uuid>573bb201-10db-4c48-87f9-c08985bd7d0f</uuid>
	    <metadata>
	      <nova:instance xmlns:nova="http://openstack.org/xmlns/libvirt/nova/1.1">
	        <nova:package version="25.1.0"/>
	        <nova:name>billing-db</nova:name>
	      </nova:instance>
	    </metadata>
	  </domain>
	</domstatus>
	XML
}

test_expect_success 'list vms: the Nova name beside the domain name, with its source; uuid from libvirt' '
	nova_root &&
	vmmprof list vms --root nova db-2 >out &&
	grep_q "^  known as    billing-db (OpenStack Nova metadata" out &&
	grep_q "^  uuid        573bb201-10db-4c48-87f9-c08985bd7d0f" out &&
	vmmprof list vms --json --root nova >j &&
	test "$(json_get j "[(v[\"name\"], v[\"alias\"]) for v in j[\"vms\"]]")" = \
		"[('"'"'web1'"'"', None), ('"'"'db-2'"'"', '"'"'billing-db'"'"')]"
'

test_expect_success 'list vms PATTERN matches the Nova name too' '
	vmmprof list vms --root nova "billing*" >out &&
	grep_q "^db-2$" out && ! grep -q "^web1$" out
'

test_expect_success 'top --vm takes the Nova name, the domain name or the uuid' '
	for n in billing-db db-2 573BB201-10DB-4C48-87F9-C08985BD7D0F; do
		vmmprof top --batch -n 1 --root nova --vm "$n" >out 2>err &&
		grep_q "^db-2 " out && ! grep -q "^web1 " out || return 1
	done
'

test_expect_success 'an unknown --vm lists the VMs there are with their Nova names' '
	expect_exit 1 vmmprof top --batch -n 1 --root nova --vm nosuch >out 2>err &&
	grep_q "no VM named .nosuch. here; VMs here: web1, db-2 (billing-db)" err
'

test_done
