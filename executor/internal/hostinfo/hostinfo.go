// Package hostinfo reads what a machine is from /proc and /sys: CPU model and count,
// memory, kernel, virtualization, load average. A run records it for the client and for a
// server on the same machine, so a comparison across machines can say how they differed.
// Every reader takes the root of the filesystem ("/" for real), so tests read recorded trees.
package hostinfo

import (
	"bufio"
	"fmt"
	"github.com/quadrant-bench/quadrant/executor/internal/loadavg"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/quadrant-bench/quadrant/results"
)

// Read describes the machine whose filesystem root is root; source and hostname are the
// caller's. What cannot be read stays empty, and the returned errors say what (a host
// without /sys/class/dmi is normal in a container, not a failure).
func Read(root, source, hostname string) (results.HostInfo, []error) {
	h := results.HostInfo{Source: source, Hostname: hostname}
	var errs []error
	cpu, err := readCPUInfo(filepath.Join(root, "proc/cpuinfo"))
	if err != nil {
		errs = append(errs, err)
	}
	h.CPUModel, h.CPUs = cpu.model, cpu.count
	if h.MemoryBytes, err = memTotal(filepath.Join(root, "proc/meminfo")); err != nil {
		errs = append(errs, err)
	}
	if h.Kernel, err = kernel(root); err != nil {
		errs = append(errs, err)
	}
	h.Virtualization, h.VirtualizationEvidence = virtualization(root, cpu)
	return h, errs
}

// cpuInfo is what /proc/cpuinfo says of the CPUs.
type cpuInfo struct {
	model      string
	count      int  // processors listed (online)
	hypervisor bool // the "hypervisor" flag: a guest of some hypervisor
	flags      bool // a flags line was there (x86): its lack of the flag means something
}

// readCPUInfo reads /proc/cpuinfo: x86's "model name", arm64's "CPU implementer"/"CPU part"
// when it has no name ("Model" on a Raspberry Pi, "cpu model" on mips, "cpu" on ppc64).
func readCPUInfo(path string) (cpuInfo, error) {
	var c cpuInfo
	f, err := os.Open(path)
	if err != nil {
		return c, fmt.Errorf("cpu: %w", err)
	}
	defer f.Close()
	var impl, part string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		switch k {
		case "processor":
			c.count++
		case "model name", "Model", "cpu model", "cpu":
			if c.model == "" || k == "model name" {
				c.model = v
			}
		case "CPU implementer":
			impl = v
		case "CPU part":
			part = v
		case "flags":
			c.flags = true
			c.hypervisor = c.hypervisor || hasWord(v, "hypervisor")
		case "Features":
			c.hypervisor = c.hypervisor || hasWord(v, "hypervisor")
		}
	}
	if c.model == "" && impl != "" {
		c.model = armName(impl, part)
	}
	if err := sc.Err(); err != nil {
		return c, fmt.Errorf("cpu: %s: %w", path, err)
	}
	if c.count == 0 {
		return c, fmt.Errorf("cpu: %s lists no processor", path)
	}
	return c, nil
}

// armName names an arm64 core by its implementer and part, as lscpu does for the common ones.
func armName(impl, part string) string {
	known := map[string]string{
		"0x41/0xd0c": "ARM Neoverse-N1", "0x41/0xd40": "ARM Neoverse-V1", "0x41/0xd4f": "ARM Neoverse-V2",
		"0x41/0xd49": "ARM Neoverse-N2", "0x41/0xd08": "ARM Cortex-A72", "0x41/0xd0b": "ARM Cortex-A76",
		"0x61/0x022": "Apple M1", "0xc0/0xac3": "Ampere-1", "0x46/0x001": "Fujitsu A64FX",
	}
	if n, ok := known[impl+"/"+part]; ok {
		return n
	}
	return fmt.Sprintf("arm64 implementer %s part %s", impl, part)
}

func hasWord(list, w string) bool {
	for _, f := range strings.Fields(list) {
		if f == w {
			return true
		}
	}
	return false
}

// memTotal is /proc/meminfo's MemTotal in bytes.
func memTotal(path string) (uint64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, fmt.Errorf("memory: %w", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "MemTotal:"); ok {
			f := strings.Fields(v)
			if len(f) == 0 {
				break
			}
			kb, err := strconv.ParseUint(f[0], 10, 64)
			if err != nil {
				break
			}
			return kb * 1024, nil
		}
	}
	return 0, fmt.Errorf("memory: %s has no MemTotal", path)
}

// kernel is "Linux 6.1.0-18-amd64" from /proc/sys/kernel (ostype, osrelease).
func kernel(root string) (string, error) {
	rel, err := os.ReadFile(filepath.Join(root, "proc/sys/kernel/osrelease"))
	if err != nil {
		return "", fmt.Errorf("kernel: %w", err)
	}
	typ, err := os.ReadFile(filepath.Join(root, "proc/sys/kernel/ostype"))
	if err != nil || len(strings.TrimSpace(string(typ))) == 0 {
		typ = []byte("Linux")
	}
	return strings.TrimSpace(string(typ)) + " " + strings.TrimSpace(string(rel)), nil
}

// LoadAverage is /proc/loadavg under root, read by loadavg's parser.
func LoadAverage(root string) (results.LoadAverage, error) {
	b, err := os.ReadFile(filepath.Join(root, "proc/loadavg"))
	if err != nil {
		return results.LoadAverage{}, err
	}
	r, err := loadavg.Parse(string(b))
	if err != nil {
		return results.LoadAverage{}, err
	}
	return results.LoadAverage{Load1: r.Load1, Load5: r.Load5, Load15: r.Load15}, nil
}
