package hostinfo

import (
	"testing"

	"github.com/quadrant-bench/quadrant/results"
)

// TestReadRecordedMachines reads machines recorded as /proc and /sys trees under testdata:
// this test host (a docker container in a firecracker VM, AMD EPYC), an EC2 guest, a bare
// metal desktop and an arm64 Kubernetes pod.
func TestReadRecordedMachines(t *testing.T) {
	cases := []struct {
		dir  string
		want results.HostInfo
	}{
		{"epyc-docker", results.HostInfo{CPUModel: "AMD EPYC", CPUs: 2, MemoryBytes: 24683748 * 1024,
			Kernel: "Linux 6.18.44-fc-v1272", Virtualization: "docker in vm",
			VirtualizationEvidence: "/.dockerenv exists; the CPU flags include hypervisor (no DMI vendor names it)"}},
		{"ec2-xeon", results.HostInfo{CPUModel: "Intel(R) Xeon(R) Platinum 8259CL CPU @ 2.50GHz", CPUs: 4,
			MemoryBytes: 16181152 * 1024, Kernel: "Linux 5.10.205-195.807.amzn2.x86_64", Virtualization: "amazon",
			VirtualizationEvidence: "DMI sys_vendor is Amazon EC2"}},
		{"metal-x86", results.HostInfo{CPUModel: "Intel(R) Core(TM) i7-8700 CPU @ 3.20GHz", CPUs: 2,
			MemoryBytes: 32658496 * 1024, Kernel: "Linux 6.1.0-18-amd64", Virtualization: "none",
			VirtualizationEvidence: "no hypervisor flag in /proc/cpuinfo and a DMI vendor of no hypervisor"}},
		{"arm-k8s", results.HostInfo{CPUModel: "ARM Neoverse-N1", CPUs: 2, MemoryBytes: 7940420 * 1024,
			Kernel: "Linux 5.15.0-1051-aws", Virtualization: "kubernetes",
			VirtualizationEvidence: "pid 1's cgroup is /kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1234.slice/cri-containerd-abcd.scope"}},
	}
	for _, c := range cases {
		got, errs := Read("testdata/"+c.dir, "client", "h")
		if len(errs) > 0 {
			t.Errorf("%s: errors %v", c.dir, errs)
		}
		c.want.Source, c.want.Hostname = "client", "h"
		if got != c.want {
			t.Errorf("%s:\n got %+v\nwant %+v", c.dir, got, c.want)
		}
	}
}

// TestReadSaysWhatIsMissing: a root with nothing readable gives empty fields and an error
// per fact, not a guess.
func TestReadSaysWhatIsMissing(t *testing.T) {
	got, errs := Read(t.TempDir(), "client", "h")
	if len(errs) != 3 {
		t.Errorf("errors: got %v, want one each for cpu, memory and kernel", errs)
	}
	if got.CPUs != 0 || got.CPUModel != "" || got.MemoryBytes != 0 || got.Kernel != "" || got.Virtualization != "" {
		t.Errorf("an unreadable machine was described: %+v", got)
	}
}

func TestLoadAverage(t *testing.T) {
	l, err := LoadAverage("testdata/ec2-xeon")
	if err != nil {
		t.Fatal(err)
	}
	if want := (results.LoadAverage{Load1: 5.61, Load5: 4.02, Load15: 3.10}); l != want {
		t.Errorf("got %+v, want %+v", l, want)
	}
	if _, err := LoadAverage(t.TempDir()); err == nil {
		t.Error("a missing /proc/loadavg gave no error")
	}
}
