package mycnf

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// Known is the list of option names a server binary knows (`mysqld --verbose --help`), against
// which a name is resolved as the server resolves it. The zero Known is a list nobody could
// give (no server binary here): then a name is resolved conservatively.
type Known struct {
	names []string // sorted, lower case, underscores
	set   map[string]bool
}

// NewKnown makes a Known of names (any case and spelling); none gives the unknown list.
func NewKnown(names []string) Known {
	k := Known{set: map[string]bool{}}
	for _, n := range names {
		n = Key(n)
		if n != "" && !k.set[n] {
			k.set[n] = true
			k.names = append(k.names, n)
		}
	}
	sort.Strings(k.names)
	return k
}

// Listed says whether the server's list is known.
func (k Known) Listed() bool { return len(k.names) > 0 }

// Names are the known names, sorted (nil for the unknown list).
func (k Known) Names() []string { return k.names }

// Key is how an option file matches a name: any case, dashes for underscores.
func Key(name string) string {
	return strings.ToLower(strings.ReplaceAll(strings.TrimSpace(name), "-", "_"))
}

// Name is an option name as the server reads it.
type Name struct {
	Written string // as the config wrote it
	// Option is the option the server takes it for (lower case, underscores). Without the
	// server's list it is the name itself with its prefixes removed, or the guarded option it
	// may abbreviate; with the list, a name the server does not know is itself (unknown).
	Option  string
	Loose   bool   // loose-: the server ignores it when it does not know it
	Negated bool   // skip- or disable-: a boolean's value is inverted
	Prefix  string // "skip", "disable", "enable" or "maximum" when one was removed
	Unknown bool   // the server's list is known and does not have it (a plugin's option?)
}

// The prefixes the server removes from a name it does not find as written (my_getopt.c's
// special_opt_prefix), and plugin- (every plugin option is also registered as plugin-NAME).
var specialPrefixes = []string{"skip", "disable", "enable", "maximum", "loose", "plugin"}

// Resolve names the option the server takes name for: my_getopt lower-cases nothing but treats
// - and _ alike, tries the name as written, an exact name winning over a prefix, and a prefix of
// exactly one option as that option (MariaDB; MySQL 8 takes no prefixes, so resolving them
// refuses more than it needs, never less); a name it does not find loses one of its special
// prefixes and is tried again. An ambiguous prefix is an error, as the server refuses it too.
// Without the server's list, a name that could abbreviate an option this package guards is taken
// for it (refusing more than needed), and an error says it is ambiguous between guarded options.
func (k Known) Resolve(written string) (Name, error) {
	n := Name{Written: written}
	s := Key(written)
	for {
		opt, err := k.lookup(s)
		if err != nil {
			return n, err
		}
		if opt != "" {
			n.Option = opt
			return n, nil
		}
		rest, p := cutSpecial(s)
		if p == "" {
			n.Option, n.Unknown = s, k.Listed()
			return n, nil
		}
		switch p {
		case "loose":
			n.Loose = true
		case "skip", "disable":
			n.Negated, n.Prefix = !n.Negated, p
		case "plugin":
		default:
			n.Prefix = p
		}
		s = rest
	}
}

func cutSpecial(s string) (rest, prefix string) {
	for _, p := range specialPrefixes {
		if r, ok := strings.CutPrefix(s, p+"_"); ok && r != "" {
			return r, p
		}
	}
	return s, ""
}

// lookup finds s as the server would: exact, else the one option it is a prefix of; "" when
// none. Without the list it looks among the options this package knows of.
func (k Known) lookup(s string) (string, error) {
	names, set := k.names, k.set
	if !k.Listed() {
		names, set = fallbackNames, fallbackSet
	}
	if set[s] {
		return s, nil
	}
	i := sort.SearchStrings(names, s)
	var found []string
	for ; i < len(names) && strings.HasPrefix(names[i], s); i++ {
		found = append(found, names[i])
	}
	switch {
	case len(found) == 1:
		return found[0], nil
	case len(found) > 1 && k.Listed():
		return "", fmt.Errorf("%s is a prefix of several options (%s), which the server refuses as ambiguous; write the option's whole name", s, short(found))
	case len(found) > 1:
		return "", fmt.Errorf("%s may abbreviate %s, options a sandbox guards (the server's own option list could not be read here to tell which); write the option's whole name", s, short(found))
	}
	return "", nil
}

func short(names []string) string {
	if len(names) > 6 {
		return strings.Join(names[:6], ", ") + ", ..."
	}
	return strings.Join(names, ", ")
}

// fallbackNames stand in for the server's list when there is none: the options a sandbox
// guards, and the harmless options a guarded one begins with (general_log before
// general_log_file), taken from MariaDB 10.11's list (TestFallbackCoversGuardedPrefixes
// keeps it whole), so that an exact harmless name is itself and any shorter one is refused.
var fallbackNames, fallbackSet = func() ([]string, map[string]bool) {
	set := map[string]bool{}
	for n := range owned {
		set[n] = true
	}
	for n := range tlsOwned {
		set[n] = true
	}
	for _, n := range pathOptions {
		set[n] = true
	}
	for _, n := range []string{"secure_file_priv", "grant_tables", "skip_grant_tables", "plugin_load", "plugin_load_add",
		"general_log", "slow_query_log", "log_bin_compress", "log_bin_compress_min_len", "log_bin_trust_function_creators",
		"log_tc_size", "port_open_timeout", "relay_log_purge", "relay_log_recovery", "relay_log_space_limit",
		"ssl", "debug_abort_slave_event_count", "debug_disconnect_slave_event_count", "debug_gdb",
		"debug_max_binlog_dump_events", "debug_no_sync", "debug_no_thread_alarm", "debug_sporadic_binlog_dump_fail",
		"innodb", "lc_messages", "log_slow_query", "innodb_data_file_path", "user_variables", "userstat", "wsrep_provider_options", "wsrep_node_name"} {
		set[n] = true
	}
	var names []string
	for n := range set {
		names = append(names, n)
	}
	sort.Strings(names)
	return names, set
}()

var (
	helpOption   = regexp.MustCompile(`^\s+(?:-[A-Za-z?#], )?--([A-Za-z0-9][A-Za-z0-9_-]*)`)
	helpVariable = regexp.MustCompile(`^([A-Za-z0-9][A-Za-z0-9_-]*)\s`)
)

// ParseHelp reads the option names of `mysqld --verbose --help`: the "--name" lines of the
// options' descriptions and the names of the "Variables ... Value" table that ends it (some
// options are only in one of the two), lower case with underscores, sorted.
func ParseHelp(help string) []string {
	set := map[string]bool{}
	table := false
	for _, line := range strings.Split(help, "\n") {
		if m := helpOption.FindStringSubmatch(line); m != nil && !table {
			set[Key(m[1])] = true
			continue
		}
		if strings.HasPrefix(line, "----") {
			table = true // the "name  value" table starts under a line of dashes
			continue
		}
		if table {
			if strings.TrimSpace(line) == "" {
				table = false
				continue
			}
			if m := helpVariable.FindStringSubmatch(line); m != nil {
				set[Key(m[1])] = true
			}
		}
	}
	out := make([]string, 0, len(set))
	for n := range set {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
