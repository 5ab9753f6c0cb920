package hostinfo

import (
	"os"
	"path/filepath"
	"strings"
)

// virtualization says what the machine runs in, as systemd-detect-virt would: a container
// (marker files, pid 1's cgroups) and a hypervisor (the DMI vendor and product, Xen's
// /proc/xen, the CPU's hypervisor flag), with what told; "" when nothing could tell.
func virtualization(root string, cpu cpuInfo) (what, evidence string) {
	ct, ctWhy := container(root)
	vm, vmWhy := hypervisor(root, cpu)
	switch {
	case ct != "" && vm != "" && vm != "none":
		return ct + " in " + vm, ctWhy + "; " + vmWhy
	case ct != "":
		return ct, ctWhy // a container's DMI and flags are its host's: "none" would be a guess about it
	}
	return vm, vmWhy
}

// container names the container runtime root is in, or "".
func container(root string) (string, string) {
	if exists(filepath.Join(root, ".dockerenv")) {
		return "docker", "/.dockerenv exists"
	}
	if exists(filepath.Join(root, "run/.containerenv")) {
		return "podman", "/run/.containerenv exists"
	}
	b, err := os.ReadFile(filepath.Join(root, "proc/1/cgroup"))
	if err != nil {
		return "", ""
	}
	for _, line := range strings.Split(string(b), "\n") {
		path := line
		if i := strings.LastIndex(line, ":"); i >= 0 {
			path = line[i+1:]
		}
		for _, m := range []struct{ marker, name string }{
			{"kubepods", "kubernetes"}, {"/docker/", "docker"}, {"/docker-", "docker"}, {"/lxc/", "lxc"},
			{"/lxc.payload", "lxc"}, {"libpod-", "podman"}, {"/containerd/", "container"},
		} {
			if strings.Contains(path, m.marker) {
				return m.name, "pid 1's cgroup is " + path
			}
		}
	}
	return "", ""
}

// dmiVendors maps the DMI vendor or product text to a hypervisor, systemd-detect-virt's names.
var dmiVendors = []struct{ text, name string }{
	{"KVM", "kvm"}, {"Amazon EC2", "amazon"}, {"QEMU", "qemu"}, {"VMware", "vmware"}, {"VMW", "vmware"},
	{"innotek GmbH", "oracle"}, {"VirtualBox", "oracle"}, {"Xen", "xen"}, {"Bochs", "bochs"},
	{"Parallels", "parallels"}, {"BHYVE", "bhyve"}, {"Google", "google"}, {"OpenStack", "kvm"},
	{"Microsoft Corporation", "microsoft"},
}

// hypervisor names the hypervisor root's machine is a guest of, "none" when the evidence
// says bare metal, "" when nothing tells.
func hypervisor(root string, cpu cpuInfo) (string, string) {
	dmi := filepath.Join(root, "sys/class/dmi/id")
	readable := false
	for _, f := range []string{"sys_vendor", "product_name", "board_vendor", "bios_vendor"} {
		b, err := os.ReadFile(filepath.Join(dmi, f))
		if err != nil {
			continue
		}
		readable = true
		v := strings.TrimSpace(string(b))
		for _, d := range dmiVendors {
			if strings.Contains(v, d.text) && (d.name != "microsoft" || cpu.hypervisor || strings.Contains(v, "Virtual")) {
				return d.name, "DMI " + f + " is " + v
			}
		}
	}
	if exists(filepath.Join(root, "proc/xen")) {
		return "xen", "/proc/xen exists"
	}
	if cpu.hypervisor {
		return "vm", "the CPU flags include hypervisor (no DMI vendor names it)"
	}
	switch {
	case readable && cpu.flags:
		return "none", "no hypervisor flag in /proc/cpuinfo and a DMI vendor of no hypervisor"
	case cpu.flags:
		return "none", "no hypervisor flag in /proc/cpuinfo"
	}
	return "", ""
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
