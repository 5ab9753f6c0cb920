package watch

import (
	"strconv"
	"strings"
)

// DefaultStatus is the curated set of status variables watched when the plan's `status:` is omitted: what a
// DBA looks at first during a benchmark (throughput by statement type, concurrency, InnoDB row and buffer pool
// activity, I/O and redo, lock waits, temporary tables and scans, network). Names the server does not have
// (MySQL versus MariaDB differences) are skipped silently.
var DefaultStatus = []string{
	"Questions", "Queries", "Slow_queries",
	"Com_select", "Com_insert", "Com_update", "Com_delete", "Com_replace", "Com_begin", "Com_commit", "Com_rollback",
	"Threads_running", "Threads_connected", "Threads_created", "Connections", "Aborted_clients", "Aborted_connects",
	"Max_used_connections",
	"Innodb_rows_*", // MySQL; MariaDB 10.6+ has none, Handler_* and Rows_* below cover it
	"Innodb_buffer_pool_read_requests", "Innodb_buffer_pool_reads", "Innodb_buffer_pool_write_requests",
	"Innodb_buffer_pool_wait_free", "Innodb_buffer_pool_pages_flushed",
	"Innodb_buffer_pool_pages_data", "Innodb_buffer_pool_pages_dirty", "Innodb_buffer_pool_pages_free",
	"Innodb_data_reads", "Innodb_data_writes", "Innodb_data_read", "Innodb_data_written", "Innodb_data_fsyncs",
	"Innodb_os_log_fsyncs", // MySQL only: MariaDB counts log fsyncs in Innodb_data_fsyncs
	"Innodb_os_log_written", "Innodb_log_writes", "Innodb_log_waits",
	"Innodb_row_lock_waits", "Innodb_row_lock_time", "Innodb_row_lock_current_waits", "Innodb_deadlocks",
	"Innodb_history_list_length", "Innodb_checkpoint_age",
	"Created_tmp_tables", "Created_tmp_disk_tables", "Select_scan", "Select_full_join", "Sort_merge_passes",
	"Handler_read_rnd_next", "Handler_read_key", "Handler_write", "Handler_update", "Handler_delete",
	"Rows_read", "Rows_sent", "Table_locks_waited", "Opened_tables", "Open_tables",
	"Binlog_commits", "Binlog_group_commits", "Binlog_bytes_written",
	"Bytes_sent", "Bytes_received",
}

// The counter/gauge rule of REFERENCE.md (mysqld_exporter, netdata, Percona templates), extended with the
// InnoDB, key cache, query cache and MariaDB counters those tools also difference. Everything else is a gauge:
// showing a counter's raw value is harmless, differencing a gauge is nonsense.
var (
	counterPrefixes = []string{
		"com_", "handler_", "innodb_rows_", "innodb_log_", "bytes_", "created_", "select_", "sort_", "opened_",
		"aborted_", "connection_errors_", "binlog_", "feature_", "table_locks_", "innodb_pages_", "innodb_dblwr_",
		"innodb_buffer_pool_read", "innodb_ibuf_merge", "innodb_ibuf_discarded_", "innodb_master_thread_",
		"qcache_", "ssl_", "performance_schema_", "subquery_cache_", "master_gtid_wait_", "column_", "rows_",
		"rpl_semi_sync_master_", "rpl_semi_sync_source_", "table_open_cache_",
	}
	counterNames = set(
		"innodb_data_reads", "innodb_data_writes", "innodb_data_fsyncs", "innodb_data_read", "innodb_data_written",
		"questions", "queries", "slow_queries", "connections", "threads_created", "slow_launch_threads",
		"innodb_buffer_pool_write_requests", "innodb_buffer_pool_wait_free", "innodb_buffer_pool_pages_flushed",
		"innodb_buffer_pool_pages_lru_flushed", "innodb_buffer_pool_pages_lru_freed",
		"innodb_buffer_pool_pages_made_young", "innodb_buffer_pool_pages_made_not_young",
		"innodb_buffer_pool_pages_split", "innodb_os_log_written", "innodb_os_log_fsyncs",
		"innodb_row_lock_waits", "innodb_row_lock_time", "innodb_deadlocks", "innodb_background_log_sync",
		"innodb_adaptive_hash_hash_searches", "innodb_adaptive_hash_non_hash_searches",
		"key_read_requests", "key_reads", "key_write_requests", "key_writes", "access_denied_errors",
		"delete_scan", "update_scan", "empty_queries", "executed_events", "executed_triggers", "syncs",
		"busy_time", "cpu_time", "delayed_writes", "delayed_errors", "max_statement_time_exceeded",
		"aria_pagecache_read_requests", "aria_pagecache_reads", "aria_pagecache_write_requests",
		"aria_pagecache_writes", "aria_transaction_log_syncs", "slave_received_heartbeats",
		"slave_retried_transactions", "slave_skipped_errors", "slave_connections", "rpl_semi_sync_slave_send_ack",
		"transactions_multi_engine", "rpl_transactions_multi_engine", "transactions_gtid_foreign_engine",
		"optimizer_join_prefixes_check_calls", "tc_log_page_waits", "innodb_truncated_status_writes",
	)
	// Gauges that a counter prefix above would catch.
	gaugeNames = set(
		"innodb_row_lock_time_avg", "innodb_row_lock_time_max", "innodb_buffer_pool_read_ahead_evicted_rate",
		"rpl_semi_sync_master_clients", "rpl_semi_sync_master_status", "rpl_semi_sync_master_wait_sessions",
		"rpl_semi_sync_master_net_avg_wait_time", "rpl_semi_sync_master_tx_avg_wait_time",
		// MySQL 8.0.26+ names its semi-sync plugin's status source/replica (8.4 only so).
		"rpl_semi_sync_source_clients", "rpl_semi_sync_source_status", "rpl_semi_sync_source_wait_sessions",
		"rpl_semi_sync_source_net_avg_wait_time", "rpl_semi_sync_source_tx_avg_wait_time",
		"qcache_free_blocks", "qcache_free_memory", "qcache_queries_in_cache", "qcache_total_blocks",
		"table_open_cache_active_instances", "binlog_snapshot_file", "binlog_snapshot_position",
		"ssl_cipher", "ssl_cipher_list", "ssl_version", "ssl_session_cache_mode", "ssl_server_not_after",
		"ssl_server_not_before", "ssl_verify_depth", "ssl_verify_mode", "ssl_session_cache_size",
		"ssl_default_timeout", "ssl_ctx_verify_depth", "ssl_ctx_verify_mode",
		"innodb_log_file_size", "innodb_log_buffer_size",
	)
)

func set(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// Classifier applies the counter/gauge rule with the plan's overrides.
type Classifier struct {
	Counters Globs // names forced to counters
	Gauges   Globs // names forced to gauges; wins over Counters: a gauge is never differenced
}

// Kind classifies a status variable name.
func (c Classifier) Kind(name string) Kind {
	if c.Gauges.Match(name) {
		return Gauge
	}
	if c.Counters.Match(name) {
		return Counter
	}
	return StatusKind(name)
}

// StatusKind is the built-in rule without overrides.
func StatusKind(name string) Kind {
	n := strings.ToLower(name)
	if gaugeNames[n] {
		return Gauge
	}
	if counterNames[n] {
		return Counter
	}
	for _, p := range counterPrefixes {
		if strings.HasPrefix(n, p) {
			return Counter
		}
	}
	return Gauge
}

// ParseValue reads a status or metric value: numbers as such, ON/OFF, YES/NO and TRUE/FALSE as 1/0 (e.g.
// Rpl_semi_sync_master_status, Slave_running). ok is false for anything else (empty, NULL, free text): such
// variables are not series.
func ParseValue(s string) (v float64, ok bool) {
	s = strings.TrimSpace(s)
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return f, true
	}
	switch strings.ToUpper(s) {
	case "ON", "YES", "TRUE":
		return 1, true
	case "OFF", "NO", "FALSE":
		return 0, true
	}
	return 0, false
}
