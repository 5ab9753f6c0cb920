package target

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/go-sql-driver/mysql"

	"github.com/quadrant-bench/quadrant/results"
)

// TLSOptions are a dsn target's tls: in the mysql client's --ssl-mode words; file paths are
// resolved (absolute or relative to the working directory).
type TLSOptions struct {
	Mode       string // disabled, preferred, required, verify-ca, verify-identity
	CA         string // PEM CA bundle; "" -> the system's CAs
	Cert, Key  string // client certificate and key, both or neither
	ServerName string // verify-identity: the name the certificate must hold ("" -> the DSN's host)
	MinVersion string // "1.2" (default) or "1.3"
	// Open opens CA, Cert and Key (the plan's roots' Open, so a symlink swapped in after
	// validation leads nowhere); nil is os.Open.
	Open func(path string) (*os.File, error)
}

// maxPEM bounds a CA bundle, certificate or key read: a provider's bundle is some 200 KB.
const maxPEM = 4 << 20

// readPEM reads path through o.Open, at most maxPEM bytes.
func (o TLSOptions) readPEM(path string) ([]byte, error) {
	open := o.Open
	if open == nil {
		open = os.Open
	}
	f, err := open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxPEM+1))
	if err == nil && len(b) > maxPEM {
		err = fmt.Errorf("%s is larger than %d bytes, too large for PEM", path, maxPEM)
	}
	return b, err
}

// tlsSetup is a target's TLS config registered with the driver under name.
type tlsSetup struct {
	name string
	cfg  *tls.Config
	opts TLSOptions
	info results.TLSInfo
}

// newTLS builds the driver's TLS config for target target at host. A CA file that holds no
// certificate, or a client certificate that does not load, fails here, naming the file.
func newTLS(target, host string, o TLSOptions) (*tlsSetup, error) {
	if o.Mode == "" {
		o.Mode = "verify-identity"
	}
	st := &tlsSetup{opts: o, info: results.TLSInfo{Mode: o.Mode}}
	if o.Mode == "disabled" {
		return st, nil
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if o.MinVersion == "1.3" {
		cfg.MinVersion = tls.VersionTLS13
	}
	if o.CA != "" {
		pem, err := o.readPEM(o.CA)
		if err != nil {
			return nil, fmt.Errorf("target %s: tls ca: %w", target, err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("target %s: tls ca %s holds no PEM certificate (want the provider's CA bundle, -----BEGIN CERTIFICATE-----)", target, o.CA)
		}
		cfg.RootCAs = pool
		st.info.CA = fileInfo(o.CA, pem)
	}
	if o.Cert != "" {
		certPEM, err := o.readPEM(o.Cert)
		var keyPEM []byte
		if err == nil {
			keyPEM, err = o.readPEM(o.Key)
		}
		var pair tls.Certificate
		if err == nil {
			pair, err = tls.X509KeyPair(certPEM, keyPEM)
		}
		if err != nil {
			return nil, fmt.Errorf("target %s: tls cert %s and key %s: %w", target, o.Cert, o.Key, err)
		}
		cfg.Certificates = []tls.Certificate{pair}
		st.info.Cert = fileInfo(o.Cert, certPEM)
		st.info.Key = &results.TLSFile{Name: filepath.Base(o.Key)}
	}
	switch o.Mode {
	case "preferred", "required":
		// The mysql client's PREFERRED and REQUIRED encrypt without checking whom they talk to.
		cfg.InsecureSkipVerify = true
	case "verify-ca":
		// Go checks the name with the chain; VERIFY_CA checks the chain alone.
		cfg.InsecureSkipVerify = true
		cfg.VerifyConnection = func(cs tls.ConnectionState) error {
			if len(cs.PeerCertificates) == 0 {
				return errors.New("tls: the server sent no certificate")
			}
			inter := x509.NewCertPool()
			for _, c := range cs.PeerCertificates[1:] {
				inter.AddCert(c)
			}
			_, err := cs.PeerCertificates[0].Verify(x509.VerifyOptions{Roots: cfg.RootCAs, Intermediates: inter})
			return err
		}
	case "verify-identity":
		cfg.ServerName = o.ServerName
		if cfg.ServerName == "" {
			cfg.ServerName = host
		}
	default:
		return nil, fmt.Errorf("target %s: tls mode %q: want disabled, preferred, required, verify-ca or verify-identity", target, o.Mode)
	}
	st.cfg = cfg
	return st, nil
}

func fileInfo(path string, content []byte) *results.TLSFile {
	f := &results.TLSFile{Name: filepath.Base(path)}
	if content != nil {
		sum := sha256.Sum256(content)
		f.SHA256 = hex.EncodeToString(sum[:])
	}
	return f
}

// register hands the config to the driver under a name of its own: the driver's TLS
// registry is process-wide, and two runs in one process (tests) may have targets of the
// same name with other CAs.
func (st *tlsSetup) register(target string) error {
	if st.cfg == nil {
		return nil
	}
	st.name = "quadrant-" + target + "-" + randomSuffix()
	if err := mysql.RegisterTLSConfig(st.name, st.cfg); err != nil {
		return fmt.Errorf("target %s: register TLS config: %w", target, err)
	}
	return nil
}

func randomSuffix() string {
	var b [6]byte
	_, _ = rand.Read(b[:]) // never fails on Linux (Go 1.24: it cannot)
	return hex.EncodeToString(b[:])
}

func (st *tlsSetup) release() {
	if st != nil && st.name != "" {
		mysql.DeregisterTLSConfig(st.name)
	}
}

// apply sets cfg to connect with st: by name (so a DSN formatted from cfg keeps it) and
// by value (so the config works without parsing).
func (st *tlsSetup) apply(cfg *mysql.Config) {
	if st.cfg == nil {
		cfg.TLS, cfg.TLSConfig, cfg.AllowFallbackToPlaintext = nil, "false", false
		return
	}
	cfg.TLSConfig = st.name
	cfg.TLS = st.cfg.Clone()
	cfg.AllowFallbackToPlaintext = st.opts.Mode == "preferred"
}

// explain turns a failed TLS connection into what went wrong and what to do.
func (st *tlsSetup) explain(err error) error {
	ca := "the system's CAs"
	if st.opts.CA != "" {
		ca = "tls ca " + st.opts.CA
	}
	var (
		unknown  x509.UnknownAuthorityError
		hostname x509.HostnameError
		invalid  x509.CertificateInvalidError
	)
	switch {
	case errors.As(err, &unknown):
		return fmt.Errorf("TLS (mode %s): the server's certificate is not signed by %s: %w; give the CA that signed it (the provider's CA bundle) as tls.ca", st.opts.Mode, ca, err)
	case errors.As(err, &hostname):
		return fmt.Errorf("TLS (mode %s, %s): the server's certificate does not name %q: %w; set tls.server_name to a name it holds, or use mode verify-ca", st.opts.Mode, ca, hostname.Host, err)
	case errors.As(err, &invalid):
		return fmt.Errorf("TLS (mode %s, %s): the server's certificate is refused: %w (an expired certificate: renew it on the server; check this machine's clock)", st.opts.Mode, ca, err)
	case errors.Is(err, mysql.ErrNoTLS):
		return fmt.Errorf("TLS (mode %s): %w; enable TLS on the server (ssl_cert, ssl_key), or use mode preferred to fall back to plaintext", st.opts.Mode, err)
	}
	var cve *tls.CertificateVerificationError
	if errors.As(err, &cve) {
		return fmt.Errorf("TLS (mode %s, %s): %w", st.opts.Mode, ca, err)
	}
	return err
}

// UseTLS makes every connection to the target use TLS as o says (nil: as the DSN says),
// and lets caching_sha2_password fetch the server's RSA key when allowPublicKey (the plan
// opted in; validation kept it to connections without verified TLS). The config is
// registered with the driver until Release.
func (t *DSNTarget) UseTLS(o *TLSOptions, allowPublicKey bool) error {
	t.pubKey = allowPublicKey
	if !allowPublicKey && t.dsn.cfg.ServerPubKey == "" {
		key, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			return fmt.Errorf("target %s: %w", t.name, err)
		}
		t.refused = "quadrant-nokey-" + t.name + "-" + randomSuffix()
		mysql.RegisterServerPubKey(t.refused, &key.PublicKey)
	}
	if o == nil {
		return nil
	}
	host, _ := hostPort(t.dsn.cfg)
	st, err := newTLS(t.name, host, *o)
	if err != nil {
		return err
	}
	if err := st.register(t.name); err != nil {
		return err
	}
	t.tls = st
	return nil
}

// Release gives the target's TLS config back to the driver.
func (t *DSNTarget) Release() {
	t.tls.release()
	if t.refused != "" {
		mysql.DeregisterServerPubKey(t.refused)
	}
}

// TLSInfo says how the target's connections use TLS, with the session's Ssl_version and
// Ssl_cipher read on db (nil for a plaintext connection of a target without tls:).
func TLSInfo(ctx context.Context, t Target, db *sql.DB) *results.TLSInfo {
	var info results.TLSInfo
	switch x := t.(type) {
	case *DSNTarget:
		if x.tls != nil {
			info = x.tls.info
		}
	case *SandboxTarget:
		if x.s.TLS() {
			info = results.TLSInfo{Mode: "verify-identity", CA: fileInfo(x.s.CAFile(), x.s.CAPEM())}
		}
	}
	var name, version, cipher string
	if err := db.QueryRowContext(ctx, "SHOW SESSION STATUS LIKE 'Ssl_version'").Scan(&name, &version); err == nil {
		info.Version = version
	}
	if err := db.QueryRowContext(ctx, "SHOW SESSION STATUS LIKE 'Ssl_cipher'").Scan(&name, &cipher); err == nil {
		info.Cipher = cipher
	}
	if info.Mode == "" && info.Version == "" {
		return nil
	}
	return &info
}

// gatePublicKey keeps a caching_sha2_password or sha256_password login over plaintext from
// fetching the server's RSA key unless the plan allowed it: go-sql-driver fetches it
// whenever such a login needs the full exchange, and a man in the middle could hand over
// a key of its own. Without the plan's consent the driver gets a key of quadrant's making
// instead, which no server can decrypt with: the login fails (1045), and Open says why.
func (t *DSNTarget) gatePublicKey(c *mysql.Config) {
	// With TLS on, the driver sends the password inside it and never uses the key; a
	// preferred connection that fell back to plaintext does, so the key goes in either way.
	if t.pubKey || t.refused == "" || c.ServerPubKey != "" {
		return
	}
	c.ServerPubKey = t.refused
}
