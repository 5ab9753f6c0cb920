package compare

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/quadrant-bench/quadrant/results"
)

// Difference is one way the conditions of two runs differed, ranked by how likely it is to
// move the numbers: a server setting, the storage, the machines, the version, the host's load.
type Difference struct {
	// Rank is the group's place (1 first); Group names it (Groups).
	Rank  int
	Group string
	// Target is the target the difference is about; "" for the client machine.
	Target string
	// Name is the setting or fact: innodb_flush_log_at_trx_commit, datadir storage, server CPUs.
	Name string
	// A and B are its value in the first and the second run ("" when a run has none).
	A, B string
	// Text is the difference in one line, for a console, a report or a verdict's candidates.
	Text string
}

// Groups of differences in rank order: those known to move the numbers, then Other.
var Groups = []string{
	"durability and flushing", "buffer pool and logs", "binary logging", "I/O capacity",
	"threads and concurrency", "server features", "storage", "network", "machine", "host load", "version", Other,
}

// Other is the group of differences not known to move the numbers.
const Other = "other differences"

// knownVariables sorts the settings known to move the numbers into their group.
var knownVariables = map[string][]string{
	"durability and flushing": {"innodb_flush_log_at_trx_commit", "sync_binlog", "innodb_flush_method", "innodb_doublewrite",
		"innodb_flush_log_at_timeout", "innodb_flush_neighbors", "sync_relay_log", "sync_master_info", "sync_source_info",
		"innodb_use_fdatasync", "innodb_fsync_threshold", "innodb_checksum_algorithm", "innodb_log_write_ahead_size"},
	"buffer pool and logs": {"innodb_buffer_pool_size", "innodb_buffer_pool_instances", "innodb_log_file_size",
		"innodb_log_files_in_group", "innodb_redo_log_capacity", "innodb_log_buffer_size", "innodb_max_dirty_pages_pct",
		"innodb_max_dirty_pages_pct_lwm", "innodb_adaptive_flushing", "innodb_adaptive_flushing_lwm", "innodb_change_buffering",
		"innodb_adaptive_hash_index", "table_open_cache", "table_definition_cache", "query_cache_type", "query_cache_size",
		"tmp_table_size", "max_heap_table_size", "key_buffer_size", "sort_buffer_size", "join_buffer_size", "aria_pagecache_buffer_size"},
	"binary logging": {"log_bin", "binlog_format", "binlog_row_image", "log_slave_updates", "log_replica_updates",
		"binlog_cache_size", "binlog_checksum", "gtid_mode", "enforce_gtid_consistency", "binlog_group_commit_sync_delay",
		"binlog_group_commit_sync_no_delay_count", "binlog_commit_wait_count", "binlog_commit_wait_usec",
		"rpl_semi_sync_master_enabled", "rpl_semi_sync_source_enabled", "rpl_semi_sync_master_wait_point",
		"binlog_transaction_compression", "log_bin_compress", "binlog_annotate_row_events", "binlog_order_commits"},
	"I/O capacity": {"innodb_io_capacity", "innodb_io_capacity_max", "innodb_read_io_threads", "innodb_write_io_threads",
		"innodb_use_native_aio", "innodb_page_size", "innodb_purge_threads", "innodb_page_cleaners", "innodb_lru_scan_depth",
		"innodb_flush_sync", "innodb_read_ahead_threshold", "innodb_random_read_ahead", "innodb_file_per_table", "innodb_compression_algorithm"},
	"threads and concurrency": {"thread_handling", "thread_pool_size", "thread_pool_max_threads", "thread_pool_oversubscribe",
		"thread_pool_stall_limit", "innodb_thread_concurrency", "innodb_concurrency_tickets", "max_connections",
		"thread_cache_size", "innodb_spin_wait_delay", "innodb_sync_spin_loops", "innodb_deadlock_detect", "innodb_lock_wait_timeout"},
	"server features": {"performance_schema", "transaction_isolation", "tx_isolation", "general_log", "slow_query_log",
		"log_output", "long_query_time", "log_queries_not_using_indexes", "innodb_stats_persistent", "innodb_stats_on_metadata",
		"character_set_server", "collation_server", "sql_mode", "query_cache_wlock_invalidate", "innodb_autoinc_lock_mode",
		"default_storage_engine", "require_secure_transport", "have_ssl", "optimizer_switch"},
}

// groupOf is a variable's group: a known one, "" for one to hide, or Other.
func groupOf(name string) string {
	for g, names := range knownVariables {
		if slices.Contains(names, name) {
			return g
		}
	}
	if hiddenVariable(name) {
		return ""
	}
	return Other
}

// hiddenVariable: a variable whose difference says nothing of performance: the instance's
// paths and ids (noisyVariables), performance_schema's sizes (which follow the server's
// memory and version), a version variable said once in the version group.
func hiddenVariable(name string) bool {
	switch {
	case noisyVariables[name], strings.HasPrefix(name, "performance_schema_"), strings.HasPrefix(name, "version"):
		return true
	case strings.HasSuffix(name, "_dir") || strings.HasSuffix(name, "_file") || strings.HasSuffix(name, "_path"):
		return true
	}
	return false
}

// RankedDifferences are what differed between runs a and b around the numbers, most likely
// to move them first: per target of a (by name, as b names them too), the settings at the
// start in rank order, the storage of its data and binary log, the links of its sandbox
// (the network between its parts, as configured), its server's machine, its
// version; the client machines; the client's load against its CPUs. Differences not known to
// move numbers come last (Other); the hidden ones (Hidden) are not listed.
func RankedDifferences(a, b *results.Run) []Difference {
	ds, _ := differences(a, b)
	return ds
}

// Hidden counts the differences RankedDifferences leaves out: settings that differ only
// because the servers are two instances (paths, ports, ids, performance_schema's sizes) and
// variables only one of the servers has.
func Hidden(a, b *results.Run) int {
	_, n := differences(a, b)
	return n
}

func differences(a, b *results.Run) ([]Difference, int) {
	var out []Difference
	hidden := 0
	for _, ta := range a.Info.Targets {
		tb := targetNamed(b, ta.Name)
		if tb == nil {
			continue
		}
		ds, h := settingDifferences(ta, *tb)
		out, hidden = append(out, ds...), hidden+h
		out = append(out, storageDifferences(ta.Name, a, b)...)
		out = append(out, linkDifferences(ta.Name, a, b)...)
		out = append(out, hostDifferences(ta.Name, "server", ta.ServerHost, tb.ServerHost, ta.ServerHostAbsent, tb.ServerHostAbsent)...)
		out = append(out, versionDifferences(ta, *tb)...)
	}
	out = append(out, hostDifferences("", "client", a.Info.ClientHost, b.Info.ClientHost, "", "")...)
	out = append(out, loadDifferences(a, b)...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Rank < out[j].Rank })
	return out, hidden
}

func targetNamed(r *results.Run, name string) *results.TargetInfo {
	for i := range r.Info.Targets {
		if r.Info.Targets[i].Name == name {
			return &r.Info.Targets[i]
		}
	}
	return nil
}

// rankOf is group's place in Groups, from 1.
func rankOf(group string) int { return slices.Index(Groups, group) + 1 }

func difference(group, target, name, a, b string) Difference {
	where := ""
	if target != "" {
		where = "target " + target + ": "
	}
	return Difference{Rank: rankOf(group), Group: group, Target: target, Name: name, A: a, B: b,
		Text: fmt.Sprintf("%s%s %s -> %s", where, name, orNone(a), orNone(b))}
}

func orNone(v string) string {
	if v == "" {
		return "(none)"
	}
	return v
}

// RunDifferences are the ranked differences of one later run (Run, from 1) against the first.
type RunDifferences struct {
	Run    int
	Ranked []Difference
	Hidden int // differences left out (Hidden)
}

// CandidateCauses are the top n differences known to move the numbers, one line each, for a
// verdict that names what may explain a change: none from Other.
func CandidateCauses(ds []Difference, n int) []string {
	var out []string
	for _, d := range ds {
		if d.Group == Other || len(out) == n {
			break
		}
		out = append(out, d.Group+": "+d.Text)
	}
	return out
}

// showOther bounds the other differences listed per run; the rest are counted.
const showOther = 15

// writeDifferences prints, per later run, what differed around the numbers by rank group.
func (c *Comparison) writeDifferences(w io.Writer) error {
	for _, rd := range c.Differences {
		fmt.Fprintf(w, "\nWhat differed, run %d vs run 1, most likely to move the numbers first:\n", rd.Run)
		if len(rd.Ranked) == 0 {
			fmt.Fprintln(w, "  nothing recorded: settings, storage, machines, load and version are the same, or not recorded in either run")
		}
		tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', 0)
		other := 0
		for _, d := range rd.Ranked {
			if d.Group == Other {
				if other++; other > showOther {
					continue
				}
			}
			fmt.Fprintf(tw, "  %s\t%s\n", d.Group, results.Printable(d.Text))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		if other > showOther {
			fmt.Fprintf(w, "  and %d more other differences (quadrant compare's HTML page lists them all)\n", other-showOther)
		}
		if rd.Hidden > 0 {
			fmt.Fprintf(w, "  (%s)\n", HiddenText(rd.Hidden))
		}
	}
	return nil
}

// HiddenText says what the n hidden differences are.
func HiddenText(n int) string {
	return fmt.Sprintf("%d more settings differ as two instances or versions do: their own paths, ports and ids, performance_schema's sizes, "+
		"variables only one server has; not listed", n)
}

// KnownBeforeRun are the ranked differences between a published run and a target described
// before a rerun starts (its variables and version, this machine as the client): those a run
// must measure (storage, load) and the facts the target cannot have yet are left out.
func KnownBeforeRun(published, target *results.Run) []Difference {
	var out []Difference
	for _, d := range RankedDifferences(published, target) {
		if d.Group == "storage" || d.Group == "host load" || strings.HasPrefix(d.B, "not recorded") {
			continue
		}
		out = append(out, d)
	}
	return out
}
