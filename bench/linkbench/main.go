// Command linkbench measures what executor/link costs and how true its delay is: the
// latency it adds at a zero shape (ping-pong through it vs direct), its CPU per MB carried
// (the proxy runs in a child process of its own, whose getrusage is read), the throughput
// it caps at, and the round trip measured through a link configured for a 2 ms RTT, on
// the host as it is and with busy loops (`yes >/dev/null`, -hogs per core) added. Each
// figure is the median of alternated rounds; every round is printed.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"runtime"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/quadrant-bench/quadrant/executor/link"
)

func main() {
	proxy := flag.String("proxy", "", "internal: run a link to this upstream and answer the parent on stdin/stdout")
	delay := flag.Duration("delay", 0, "internal: the proxy's one-way delay")
	rounds := flag.Int("rounds", 5, "alternated rounds of each comparison")
	pings := flag.Int("pings", 2000, "round trips per ping-pong round")
	mb := flag.Int("mb", 256, "MB per bulk transfer round")
	hogs := flag.Int("hogs", 2, "busy loops per core for the loaded accuracy series (0 skips it)")
	flag.Parse()
	if *proxy != "" {
		serveProxy(*proxy, *delay)
		return
	}
	if err := run(*rounds, *pings, *mb, *hogs); err != nil {
		fmt.Fprintln(os.Stderr, "linkbench:", err)
		os.Exit(1)
	}
}

func run(rounds, pings, mb, hogs int) error {
	fmt.Printf("host: %d CPUs, load %s\n", runtime.NumCPU(), loadavg())
	echo, err := serve(echoConn)
	if err != nil {
		return err
	}
	if err := latency(echo, rounds, pings); err != nil {
		return err
	}
	sink, err := serve(sinkConn)
	if err != nil {
		return err
	}
	for _, d := range []time.Duration{0, time.Millisecond} {
		if err := bulk(sink, rounds, mb, d); err != nil {
			return err
		}
	}
	if err := accuracy(echo, rounds, pings, "as it is"); err != nil {
		return err
	}
	if hogs == 0 {
		return nil
	}
	stop, err := startHogs(hogs * runtime.NumCPU())
	if err != nil {
		return err
	}
	defer stop()
	time.Sleep(time.Second)
	return accuracy(echo, rounds, pings, fmt.Sprintf("+ %d busy loops per core", hogs))
}

// latency alternates ping-pong rounds direct and through a zero-shaped link.
func latency(echo string, rounds, pings int) error {
	p, err := startProxy(echo, 0)
	if err != nil {
		return err
	}
	defer p.stop()
	fmt.Printf("\nadded latency at a zero shape: %d round trips of 64 bytes per round, direct and through the link alternated\n", pings)
	fmt.Printf("%-6s %-8s %12s %12s\n", "round", "path", "p50 µs", "p99 µs")
	var d50, d99, l50, l99 []float64
	for r := range rounds {
		for _, via := range []struct {
			name     string
			addr     string
			p50, p99 *[]float64
		}{{"direct", echo, &d50, &d99}, {"link", p.addr, &l50, &l99}} {
			rtts, err := pingPong(via.addr, pings)
			if err != nil {
				return err
			}
			a, b := us(pct(rtts, 50)), us(pct(rtts, 99))
			*via.p50, *via.p99 = append(*via.p50, a), append(*via.p99, b)
			fmt.Printf("%-6d %-8s %12.1f %12.1f\n", r+1, via.name, a, b)
		}
	}
	fmt.Printf("median direct p50 %.1f µs p99 %.1f µs; link p50 %.1f µs p99 %.1f µs; added p50 %.1f µs p99 %.1f µs\n",
		median(d50), median(d99), median(l50), median(l99), median(l50)-median(d50), median(l99)-median(d99))
	return nil
}

// bulk alternates one-way transfers direct and through the link: MB/s, and the proxy's
// CPU per MB carried.
func bulk(sink string, rounds, mb int, delay time.Duration) error {
	p, err := startProxy(sink, delay)
	if err != nil {
		return err
	}
	defer p.stop()
	fmt.Printf("\nthroughput: %d MB one way per round, direct and through a link of delay %s alternated\n", mb, delay)
	fmt.Printf("%-6s %-8s %10s %16s\n", "round", "path", "MB/s", "proxy CPU ms/MB")
	var direct, via, cpu []float64
	for r := range rounds {
		rate, err := transfer(sink, mb)
		if err != nil {
			return err
		}
		direct = append(direct, rate)
		fmt.Printf("%-6d %-8s %10.0f %16s\n", r+1, "direct", rate, "")
		c0, _, err := p.stats()
		if err != nil {
			return err
		}
		rate, err = transfer(p.addr, mb)
		if err != nil {
			return err
		}
		c1, _, err := p.stats()
		if err != nil {
			return err
		}
		perMB := float64(c1-c0) / float64(time.Millisecond) / float64(mb)
		via, cpu = append(via, rate), append(cpu, perMB)
		fmt.Printf("%-6d %-8s %10.0f %16.3f\n", r+1, "link", rate, perMB)
	}
	fmt.Printf("median direct %.0f MB/s, link %.0f MB/s (%.2f of direct), proxy CPU %.3f ms per MB\n",
		median(direct), median(via), median(via)/median(direct), median(cpu))
	return nil
}

// accuracy measures round trips through a link of 2 ms RTT (1 ms each way).
func accuracy(echo string, rounds, pings int, load string) error {
	p, err := startProxy(echo, time.Millisecond)
	if err != nil {
		return err
	}
	defer p.stop()
	fmt.Printf("\ntiming accuracy, host %s (load %s): a link of 2 ms RTT, %d round trips per round\n", load, loadavg(), pings)
	fmt.Printf("%-6s %12s %12s %18s\n", "round", "p50 ms", "p99 ms", "timer late µs")
	var m50, m99, late []float64
	for r := range rounds {
		_, l0, err := p.stats()
		if err != nil {
			return err
		}
		rtts, err := pingPong(p.addr, pings)
		if err != nil {
			return err
		}
		_, l1, err := p.stats()
		if err != nil {
			return err
		}
		a, b, c := ms(pct(rtts, 50)), ms(pct(rtts, 99)), us(l1-l0)/float64(2*pings)
		m50, m99, late = append(m50, a), append(m99, b), append(late, c)
		fmt.Printf("%-6d %12.3f %12.3f %18.1f\n", r+1, a, b, c)
	}
	fmt.Printf("median p50 %.3f ms, p99 %.3f ms (configured 2.000); the link's timers late by %.1f µs a chunk on average\n", median(m50), median(m99), median(late))
	return nil
}

// pingPong sends n messages of 64 bytes one at a time and times each echo.
func pingPong(addr string, n int) ([]time.Duration, error) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	msg, got := make([]byte, 64), make([]byte, 64)
	out := make([]time.Duration, 0, n)
	for range n {
		t := time.Now()
		if _, err := c.Write(msg); err != nil {
			return nil, err
		}
		if _, err := io.ReadFull(c, got); err != nil {
			return nil, err
		}
		out = append(out, time.Since(t))
	}
	return out, nil
}

// transfer sends mb MB to a sink and waits for its count back: MB/s.
func transfer(addr string, mb int) (float64, error) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	buf := make([]byte, 1<<20)
	t := time.Now()
	for range mb {
		if _, err := c.Write(buf); err != nil {
			return 0, err
		}
	}
	c.(*net.TCPConn).CloseWrite()
	if _, err := io.ReadAll(c); err != nil { // the sink answers once it read everything
		return 0, err
	}
	return float64(mb) / time.Since(t).Seconds(), nil
}

func serve(handle func(net.Conn)) (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				handle(c)
			}()
		}
	}()
	return ln.Addr().String(), nil
}

func echoConn(c net.Conn) { io.Copy(c, c) }

func sinkConn(c net.Conn) {
	n, _ := io.Copy(io.Discard, c)
	fmt.Fprintf(c, "%d\n", n)
}

// proxy is a link running in a child process, so its CPU is its own.
type proxy struct {
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Reader
	addr string
}

func startProxy(upstream string, delay time.Duration) (*proxy, error) {
	cmd := exec.Command(os.Args[0], "-proxy", upstream, "-delay", delay.String())
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &proxy{cmd: cmd, in: in, out: bufio.NewReader(stdout)}
	line, err := p.out.ReadString('\n')
	if err != nil {
		p.stop()
		return nil, fmt.Errorf("proxy did not start: %w", err)
	}
	p.addr = strings.TrimSpace(line)
	return p, nil
}

// stats asks the child for its user+system CPU and its link's timers' lateness in all.
func (p *proxy) stats() (cpu, late time.Duration, err error) {
	if _, err := io.WriteString(p.in, "stats\n"); err != nil {
		return 0, 0, err
	}
	_, err = fmt.Fscanln(p.out, &cpu, &late)
	return cpu, late, err
}

func (p *proxy) stop() {
	p.in.Close()
	p.cmd.Wait()
}

// serveProxy is the child: it prints the link's address, then its stats for each line read,
// and ends with its stdin.
func serveProxy(upstream string, delay time.Duration) {
	l, err := link.Listen(upstream, link.Shape{Delay: delay})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer l.Close()
	fmt.Println(l.Addr())
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		var ru syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		fmt.Println(ru.Utime.Nano()+ru.Stime.Nano(), int64(l.Stats().Late))
	}
}

// startHogs runs n `yes >/dev/null` loops until stop.
func startHogs(n int) (stop func(), err error) {
	var cmds []*exec.Cmd
	stop = func() {
		for _, c := range cmds {
			c.Process.Kill()
			c.Wait()
		}
	}
	for range n {
		c := exec.Command("yes")
		if err := c.Start(); err != nil { // stdout unset: /dev/null
			stop()
			return nil, err
		}
		cmds = append(cmds, c)
	}
	return stop, nil
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Join(strings.Fields(string(b))[:3], " ")
}

func pct(d []time.Duration, p int) time.Duration {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[min(len(s)-1, len(s)*p/100)]
}

func us(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return s[len(s)/2]
}
