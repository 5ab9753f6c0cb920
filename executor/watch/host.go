package watch

import (
	"strings"
	"unicode"
)

// Host metric names: the same names, units and columns (host.NAME, host.NAME.DEVICE) whichever source reads
// them, an SNMP agent or /proc on this machine; run.json records the source of each column.
const (
	HostLoad1      = "load1"
	HostLoad5      = "load5"
	HostLoad15     = "load15"
	HostCPUUtil    = "cpu_util"
	HostCPUUser    = "cpu_user"
	HostCPUSystem  = "cpu_system"
	HostCPUIOWait  = "cpu_iowait"
	HostMemTotal   = "mem_total"
	HostMemAvail   = "mem_avail"
	HostDiskReadKB = "disk_read_kbs"
	HostDiskWrite  = "disk_write_kbs"
	HostDiskReads  = "disk_reads"
	HostDiskWrites = "disk_writes"
	HostNetRxKB    = "net_rx_kbs"
	HostNetTxKB    = "net_tx_kbs"
)

// HostPrefix starts every host column. Folders written before it existed used "snmp.".
const HostPrefix = "host."

// PerDisk and PerInterface metrics give one column per device: host.disk_read_kbs.vda, host.net_rx_kbs.eth0.
// They are per-second rates over the interval; their summary is the average rate since Baseline.
func PerDisk(name string) bool {
	return name == HostDiskReadKB || name == HostDiskWrite || name == HostDiskReads || name == HostDiskWrites
}

// PerInterface: see PerDisk.
func PerInterface(name string) bool { return name == HostNetRxKB || name == HostNetTxKB }

// Disks keeps the whole block devices of a device list, in order: not loop or RAM devices, not a partition of
// another listed device (vda1 of vda, nvme0n1p1 of nvme0n1). Both sources list the same kernel names.
func Disks(names []string) []string {
	have := map[string]bool{}
	for _, n := range names {
		have[n] = true
	}
	var out []string
	for _, n := range names {
		if strings.HasPrefix(n, "loop") || strings.HasPrefix(n, "ram") || isPartition(n, have) {
			continue
		}
		out = append(out, n)
	}
	return out
}

func isPartition(n string, have map[string]bool) bool {
	i := len(n)
	for i > 0 && unicode.IsDigit(rune(n[i-1])) {
		i--
	}
	if i == len(n) || i == 0 {
		return false
	}
	if have[n[:i]] {
		return true
	}
	return n[i-1] == 'p' && have[n[:i-1]]
}

// Interfaces keeps the network interfaces worth watching: all but loopback, whose traffic (a client and a
// server on one machine) is no network cost.
func Interfaces(names []string) []string {
	var out []string
	for _, n := range names {
		if n != "lo" {
			out = append(out, n)
		}
	}
	return out
}
