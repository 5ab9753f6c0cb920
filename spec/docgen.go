package spec

import (
	"cmp"
	"fmt"
	"reflect"
	"strings"

	"github.com/quadrant-bench/quadrant/results/measure"
	"github.com/quadrant-bench/quadrant/templates"
)

// MarkdownReference returns docs/plan-reference.md, generated from the types of the plan
// and of the kinds ks (executor/kinds generates it: go generate ./executor/kinds).
func MarkdownReference(ks *Kinds) []byte {
	var b strings.Builder
	b.WriteString(refIntro)
	for _, t := range docTypes(ks) {
		text := sectionText[t.Name()]
		if t == workloadType {
			text = "Exactly one of the kinds' keys, " + kindWords(ks.Keys()) + ", and the settings every kind shares. A run needs `duration` or `events`, unless its kind ends by itself."
		}
		if t == stepType {
			text = "Each step has exactly one action key (" + codeList(ks.StepKeys()) + ") plus options that apply to it. " + sectionText["Step"]
		}
		if d, ok := reflect.New(t).Interface().(Documented); ok {
			text = d.PlanDoc()
		}
		fmt.Fprintf(&b, "\n## %s\n\n%s\n\n| key | type | default | description |\n| --- | --- | --- | --- |\n", sectionTitle(t), text)
		if t == workloadType {
			for _, key := range ks.Keys() {
				typ := typeWord(kindBodyType(ks, key), field{})
				if vals := ks.values(key); len(vals) > 0 {
					typ = "a name (see below)"
				}
				fmt.Fprintf(&b, "| `%s` | %s |  | %s |\n", key, typ, strings.ReplaceAll(kindDoc(ks, key), "|", "\\|"))
			}
		}
		if t == stepType {
			for _, k := range ks.Steps() {
				typ := cmp.Or(k.DocType, typeWord(reflect.TypeOf(k.Body()), field{}))
				fmt.Fprintf(&b, "| `%s` | %s |  | %s |\n", k.Key, typ, strings.ReplaceAll(k.Doc, "|", "\\|"))
			}
		}
		for _, f := range structFields(t) {
			ft := t.Field(f.index).Type
			typ := typeWord(ft, f)
			if t == workloadType && f.key == "options" {
				typ, f.doc = typeWord(optionsType(ks), f), optionsDoc(ks)
			}
			if f.required {
				typ += ", required"
			}
			def := ""
			if f.def != "" {
				def = "`" + f.def + "`"
			}
			fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", f.key, typ, def, strings.ReplaceAll(f.doc, "|", "\\|"))
		}
	}
	for _, key := range ks.Keys() {
		if vals := ks.values(key); len(vals) > 0 {
			fmt.Fprintf(&b, "\n## Names of `%s:`\n\n", key)
			for _, w := range vals {
				fmt.Fprintf(&b, "- `%s`\n", w)
			}
		}
	}
	b.WriteString("\n## Assertion names\n\n`assert:` expressions may use these iteration metrics (numbers, over the measured part of the " +
		"iteration), `status.NAME` (the counter's increase during the workload, or the gauge's last value) and every " +
		"`record_as` name of the plan. The same names are summary.csv's columns (see docs/metrics.md).\n\n| name | unit | meaning |\n| --- | --- | --- |\n")
	for _, m := range ks.AssertionMetrics() {
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", m.Name, m.Unit, m.Doc)
	}
	fmt.Fprintf(&b, "\nWith a workload that has transactions (a custom mix's are its own; each kind's section says its names), "+
		"`tx.NAME.SUFFIX` gives transaction NAME's figures, SUFFIX one of %s (`\"tx.new_order.p90_ms < 5000\"`).\n",
		"`"+strings.Join(measure.TxSuffixes, "`, `")+"`")
	fmt.Fprintf(&b, "\nWith a workload of a kind that can spread its threads (builtin, tpcc, transactions) on a Galera sandbox target, `node.NAME.SUFFIX` gives node NAME's figures (NAME the node's "+
		"target name), SUFFIX one of %s (`\"node.db_node2.cert_failures == 0\"`).\n", codeList(measure.NodeSuffixes))
	b.WriteString("\n## Generator functions for transaction args\n\n| function | signature | meaning |\n| --- | --- | --- |\n")
	for _, g := range Generators {
		fmt.Fprintf(&b, "| `%s` | `%s` | %s |\n", g.Name, strings.TrimPrefix(reflect.TypeOf(g.Sig).Elem().String(), "func"), g.Doc)
	}
	b.WriteString("\n## Host metric names\n\n`watch.host` (or its older name `watch.snmp`): columns `host.NAME`, over SNMP or from /proc.\n\n| name | source |\n| --- | --- |\n")
	for _, n := range SNMPMetricNames() {
		fmt.Fprintf(&b, "| `%s` | %s |\n", n, KnownSNMPMetrics[n])
	}
	b.WriteString("\n## Built-in templates\n\nUse with `extends: builtin:NAME` or `quadrant init --template NAME`.\n\n")
	for _, t := range templates.List() {
		fmt.Fprintf(&b, "- `%s`: %s\n", t.Name, t.Description)
	}
	return []byte(b.String())
}

// codeList writes names as `a`, `b`, `c`.
func codeList(names []string) string {
	return "`" + strings.Join(names, "`, `") + "`"
}

func sectionTitle(t reflect.Type) string {
	if t == reflect.TypeOf(Plan{}) {
		return "Top level"
	}
	return "`" + defName(t) + "`"
}

func typeWord(t reflect.Type, f field) string {
	switch t {
	case durationType:
		return "duration"
	case reflect.TypeOf(Settings{}):
		return "map NAME: scalar (ordered)"
	case reflect.TypeOf(Targets{}):
		return "map NAME: [target](#target)"
	case reflect.TypeOf(Vars{}):
		return "map NAME: value"
	case reflect.TypeOf(Matrix{}):
		return "map AXIS: list, exclude, include"
	case reflect.TypeOf(Expr{}):
		return "expression"
	case reflect.TypeOf(SNMPMetrics{}):
		return "list of names, or map NAME: OID"
	case reflect.TypeOf(Spread{}):
		return "`one`, `all`, list of nodes, or map NODE: weight"
	case reflect.TypeOf(&Restore{}):
		return "`setup` or [restore](#restore)"
	case reflect.TypeOf(Bandwidth(0)):
		return "bandwidth (100Mbit, 1Gbit, 50MB)"
	case reflect.TypeOf(Refused(false)):
		return "refused here"
	case reflect.TypeOf(Loss(0)):
		return "percentage (0.1%)"
	}
	if t.Kind() != reflect.Pointer {
		if pt, ok := reflect.Zero(t).Interface().(PlanTyped); ok {
			return pt.PlanType()
		}
	}
	switch t.Kind() {
	case reflect.Pointer:
		return typeWord(t.Elem(), f)
	case reflect.Struct:
		return fmt.Sprintf("[%s](#%s)", defName(t), defName(t))
	case reflect.Slice:
		w := "list of " + typeWord(t.Elem(), field{})
		if len(f.enum) > 0 {
			w += " (" + strings.Join(f.enum, ", ") + ")"
		}
		return w
	case reflect.String:
		if len(f.enum) > 0 {
			return "one of " + strings.Join(f.enum, ", ")
		}
		if f.pattern != "" {
			return "name `" + f.pattern + "`"
		}
		return "string"
	case reflect.Int, reflect.Int64:
		if f.min != "" {
			return "integer >= " + f.min
		}
		return "integer"
	case reflect.Float64:
		if f.min != "" {
			return "number >= " + f.min
		}
		return "number"
	case reflect.Bool:
		return "boolean"
	}
	return t.String()
}

var sectionText = map[string]string{
	"Plan":       "A plan is one YAML file. Unknown keys are errors (with a \"did you mean\"); all errors are reported together, sorted by position.",
	"Target":     "A server, by name (`[a-z][a-z0-9_]*`). A sandbox's replicas are the targets `NAME_replica1`, `NAME_replica2`, ...; a Galera sandbox's nodes after the first (the target itself) are `NAME_node2`, `NAME_node3`, ...",
	"Sandbox":    "A throwaway local server (127.0.0.1 only) started and removed by quadrant.",
	"Links":      "The network between a sandbox's parts (see docs/network.md): each link is a TCP proxy of quadrant's on 127.0.0.1 that delays what it carries in each direction, throttles it to a bandwidth and holds a share of writes for a retransmission's time (loss). `client` is the path of the workloads to the primary (a failover drill's front is that proxy, so the drill still switches it), `replicas` each replica's path to the primary (its IO thread connects through it: semi-sync waits one round trip of it per commit), `NAME_replicaN` (the replica's target name) overrides `replicas` for one replica, key by key. Each value may use `matrix.*` and `iteration.*`; before each iteration the links take that iteration's values and are probed (a median of pings through each to the server behind it), both logged and kept in run.json's `links`. Example: `links: {replicas: {rtt: \"${{ matrix.rtt }}\"}}` with `matrix: {rtt: [0ms, 2ms, 10ms]}`.",
	"Link":       "One link's shape. Every key is optional (0: nothing added); a key left out under `NAME_replicaN` is taken from `replicas`.",
	"SNMP":       "Host metrics of the machine a target runs on. v1/v2c need `community`; v3 needs `user`, and auth/priv protocol and password in pairs.",
	"Iteration":  "What each matrix cell does, in this order: the sandboxes' moves (sandbox.dir), restore, server_config (restart when it changed), globals, the sandboxes' links shaped and probed (sandbox.links), before, workload (with during steps at their offsets), after, assert.",
	"Restore":    "`restore: setup` (or this mapping) starts every iteration from the data as setup left it, so that a write workload's second iteration does not run on the first one's leftovers. When setup ends, each sandbox restored is stopped, a copy of its datadir (its replicas' too, caught up first) is taken inside its own directory (a reflink per file where the filesystem can clone, XFS or Btrfs, else a full copy; log.txt says which, how many bytes and how long), and it starts again. Before each iteration but the first, which starts from setup's end as it is, the sandbox is stopped, the copy put back and the sandbox started (a server_config change then restarts it once more); then `steps` run, which bring the dsn targets back (quadrant cannot copy their data). run.json records each restore per iteration (`restore`: method, seconds, bytes) and the copies taken (`snapshots`). The copy moves with the sandbox (`sandbox.dir`) and goes with it.",
	"Step":       "`shell`, `drop_caches` and a dsn target's `restart` command need `--allow-shell`, as does a `sysbench:` workload with a Lua script of its own; a file a step reads or writes outside the plan's folder needs `--allow-path` (see docs/security.md).",
	"Stage":      "One level of a workload's load shape (`stages:`): `{duration, threads}` or `{duration, rate}`. Under `--shard K/N` each stage's threads and rate are split like the workload's (see docs/distributed.md).",
	"OnError":    "Which MySQL errors a workload tolerates.",
	"Watch":      "What is sampled during every measured workload. Counters are reported as per-second rates and increases; gauges as values.",
	"WatchQuery": "A custom sampled query.",
	"Report":     "Where results go and in which formats.",
}

const refIntro = `<!-- Generated by spec.MarkdownReference (go generate ./executor/kinds); do not edit by hand. -->
# Plan reference (format version 1)

A plan is one YAML file that says everything a benchmark run does. This page is generated from the code that
reads plans, so it is always what ` + "`quadrant validate`" + ` accepts. Editors get completion from
` + "`docs/plan.schema.json`" + ` (first line of a plan: ` + "`# yaml-language-server: $schema=...`" + `).

## Conventions

- Keys are snake_case. Durations are Go-style strings: ` + "`500ms`, `30s`, `10m`, `1h30m`" + `. Sizes of size options
  (names ending in ` + "`_size`" + `, ` + "`max_allowed_packet`" + `) may be written ` + "`512K`, `256M`, `1G`" + `; in ` + "`globals`/`set_global`" + ` they are
  converted to bytes, in my.cnf options they are written as given.
- ` + "`${{ EXPR }}`" + ` anywhere in a string is an expression ([expr-lang](https://expr-lang.org) syntax), evaluated when the plan
  loads. It may use ` + "`vars.NAME`, `env.NAME`, `matrix.AXIS`, `iteration.index`" + ` (1-based over the run), ` + "`iteration.repeat`" + `,
  ` + "`iteration.cell`, `target.NAME.host`, `target.NAME.port`" + `. A string that is exactly one expression keeps its type
  (` + "`threads: ${{ matrix.threads }}`" + ` is a number). A missing environment variable is an error unless a default is
  given: ` + "`${{ env.PW ?? \"\" }}`" + `. ` + "`matrix.*`/`iteration.*`" + ` exist only inside ` + "`iteration:`" + `; a var may use ` + "`env.*`" + ` and
  the vars declared before it. A sandbox's port is known only once it runs: ` + "`quadrant explain`" + ` shows it as ` + "`<port of NAME>`" + `.
- ` + "`assert`" + `, ` + "`wait.until`" + ` and transaction ` + "`args`" + ` are expressions themselves (no ` + "`${{ }}`" + ` needed), checked when the plan loads.
- ` + "`--set vars.NAME=VALUE`" + ` (or ` + "`--set NAME=VALUE`" + `) overrides a declared var; VALUE is read as YAML: ` + "`--set threads=[1,8]`" + `.
- ` + "`extends: builtin:NAME`" + ` or ` + "`extends: base.yaml`" + ` (relative to the file): maps merge key by key, lists and scalars replace,
  and a key set to null is removed (` + "`sandbox: null`" + ` plus ` + "`dsn:`" + ` turns a template's sandbox into an existing server).
- YAML anchors and aliases work, merge keys too (` + "`<<: *common`" + `). Top-level keys starting with ` + "`x-`" + ` are ignored,
  so that they can hold anchors: ` + "`x-workload: &wl {builtin: oltp_read_only, duration: 60s}`" + `.

## Matrix and iterations

Cells run in the order the axes are written, **last axis fastest**; ` + "`exclude`" + ` entries remove every cell they match
(an entry that matches nothing is an error), ` + "`include`" + ` entries are extra cells appended at the end (each gives every axis).
With ` + "`repeat:`" + `, ` + "`order:`" + ` says how the runs of the cells follow each other: ` + "`interleaved`" + ` (the default) runs one
of every cell, then the next (A B A B), so that drift over time (a warming cache, another job starting on the host)
falls on every cell alike and ` + "`quadrant compare`" + `'s confidence intervals mean what they say; ` + "`sequential`" + ` runs one
cell's repeats back to back (cell 1 run 1, cell 1 run 2, cell 2 run 1, ...: they share the server configuration, so no
restart between them); ` + "`random`" + ` shuffles them with ` + "`order_seed`" + `. Iteration numbers follow execution order;
` + "`repeat`" + ` counts each cell's runs in time, whatever the order, and names each iteration's files by its number; run.json
records the order and the seed; ` + "`quadrant explain`" + ` lists the order and the restarts it costs. Give ` + "`repeat: 3`" + ` or
more to a plan whose cells are compared (a matrix, ` + "`compare`" + `, ` + "`--fail-on`" + `): with fewer, ` + "`compare`" + ` calls every
change inconclusive, and ` + "`validate`" + ` and ` + "`explain`" + ` warn. An axis may be an expression giving a list:
` + "`threads: ${{ vars.threads }}`" + `.

**Changed default.** ` + "`order:`" + ` defaulted to ` + "`sequential`" + ` before; a plan that does not write it now runs its repeats
interleaved (A B A B instead of A A B B). Comparisons line cells up by their matrix values, not their iteration numbers,
so an older folder still compares with a new run; ` + "`run --resume`" + ` of a run started before the change keeps the order it
started in (run.json records it; a folder without it ran sequential). Write ` + "`order: sequential`" + ` to keep a cell's
repeats together, e.g. when cells differ in ` + "`server_config`" + ` and each restart is costly.

## Secrets

The resolved plan written to the results (still a valid plan: a colleague reruns it with ` + "`--target NAME=DSN`" + `)
replaces dsn passwords, SNMP community and passwords, every ` + "`${{ }}`" + ` that reads ` + "`env.*`" + `, and any other
occurrence of the value of an environment variable the plan read (4 characters or longer) with ` + "`***`" + `.
` + "`quadrant explain`" + ` hides them the same way.

## Errors

` + "`quadrant validate`" + ` reports every problem of a plan at once, sorted by position, one per line, as
` + "`FILE:LINE:COLUMN: what is wrong; what to do`" + `, e.g.
` + "`plan.yaml:12:5: unknown key \"thread\" in workload; did you mean \"threads\"?`" + `. Errors inside an expression point at
the column inside the expression. A plan may expand to at most 10000 iterations.
`

// optionsType is what options: decodes into, for docs: the first kind's that takes options.
func optionsType(ks *Kinds) reflect.Type {
	for _, k := range ks.All() {
		if k.Options != nil {
			return reflect.TypeOf(k.Options()).Elem()
		}
	}
	return reflect.TypeOf(Settings{})
}

// optionsDoc is options:'s description: each kind's that takes options.
func optionsDoc(ks *Kinds) string {
	var docs []string
	for _, k := range ks.All() {
		if k.OptionsDoc != "" {
			docs = append(docs, k.OptionsDoc)
		}
	}
	return "The kind's own options: " + strings.Join(docs, " ")
}
