package sandbox

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/go-sql-driver/mysql"
)

// certValidity is how long a sandbox's CA and certificates are valid: longer than any run,
// short enough that a key left behind in a kept directory soon opens nothing.
const certValidity = 7 * 24 * time.Hour

// CAFileName is the sandbox CA's certificate in the cluster's directory.
const CAFileName = "ca.pem"

// serverTLS is a server's TLS: the cluster's CA (which quadrant's connections trust) and
// the name of the config registered with the driver.
type serverTLS struct {
	caPEM []byte
	pool  *x509.CertPool
	name  string // in the driver's TLS registry
}

// tlsDir holds the server's copy of the CA, its certificate and its key, the server's
// user's alone.
func (s *Server) tlsDir() string { return filepath.Join(s.dir, "tls") }

// TLS says the server requires TLS (sandbox tls: on).
func (s *Server) TLS() bool { return s.tls != nil }

// CAFile is the CA certificate that signed the server's certificate, in the cluster's
// directory (readable by quadrant's user); "" without TLS.
func (s *Server) CAFile() string {
	if s.tls == nil {
		return ""
	}
	return filepath.Join(filepath.Dir(s.dir), CAFileName)
}

// CAPEM is the CA certificate, PEM encoded; nil without TLS.
func (s *Server) CAPEM() []byte {
	if s.tls == nil {
		return nil
	}
	return s.tls.caPEM
}

// TLSConfigName is the name the server's client TLS config has in the driver's registry
// (a DSN's tls=NAME within this process); "" without TLS.
func (s *Server) TLSConfigName() string {
	if s.tls == nil {
		return ""
	}
	return s.tls.name
}

// ClientTLS is what a client verifies the server with: the sandbox's CA and the
// certificate's name, 127.0.0.1 (verify-identity); nil without TLS.
func (s *Server) ClientTLS() *tls.Config {
	if s.tls == nil {
		return nil
	}
	return &tls.Config{RootCAs: s.tls.pool, ServerName: s.Host(), MinVersion: tls.VersionTLS12}
}

// tlsOptions point the server at its certificate and refuse plaintext over TCP (the unix
// socket, quadrant's own control path, counts as secure).
func (s *Server) tlsOptions() []Option {
	if s.tls == nil {
		return nil
	}
	d := s.tlsDir()
	return []Option{
		{Name: "ssl_ca", Value: filepath.Join(d, "ca.pem")},
		{Name: "ssl_cert", Value: filepath.Join(d, "server-cert.pem")},
		{Name: "ssl_key", Value: filepath.Join(d, "server-key.pem")},
		{Name: "require_secure_transport", Value: "ON"},
	}
}

// clusterCA is a sandbox cluster's certificate authority, made at its start and never
// written anywhere but the cluster's directory (the key not even there).
type clusterCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pem  []byte
}

func newCA(name string) (*clusterCA, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: "quadrant sandbox " + name + " CA"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(certValidity),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
		MaxPathLenZero:        true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	return &clusterCA{cert: cert, key: key, pem: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}, nil
}

// serverCert is a certificate for 127.0.0.1 and localhost signed by the CA, and its key.
func (ca *clusterCA) serverCert(name string) (certPEM, keyPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{CommonName: name},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(certValidity),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:     []string{"localhost"},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		return nil, nil, err
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), nil
}

func serial() *big.Int {
	n, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 120))
	return n
}

// setupTLS writes the server's certificate, key and the CA into its tls/ directory, owned
// by the server's user (mode 0700, the key 0600), and registers the client config.
func (s *Server) setupTLS(ca *clusterCA) error {
	certPEM, keyPEM, err := ca.serverCert(s.name)
	if err != nil {
		return fmt.Errorf("TLS certificate: %w", err)
	}
	d := s.tlsDir()
	if err := s.acct.privateDir(d); err != nil {
		return err
	}
	for name, content := range map[string][]byte{"ca.pem": ca.pem, "server-cert.pem": certPEM, "server-key.pem": keyPEM} {
		p := filepath.Join(d, name)
		if err := writePrivate(p, string(content)); err != nil {
			return err
		}
		if err := s.acct.own(p); err != nil {
			return err
		}
	}
	pool := x509.NewCertPool()
	pool.AddCert(ca.cert)
	var b [6]byte
	_, _ = rand.Read(b[:])
	s.tls = &serverTLS{caPEM: ca.pem, pool: pool, name: "quadrant-sandbox-" + s.name + "-" + hex.EncodeToString(b[:])}
	return mysql.RegisterTLSConfig(s.tls.name, s.ClientTLS())
}

// writeCA puts the CA certificate in the cluster's directory, for clients: readable by
// anyone who may enter the directory (a certificate is no secret).
func (c *Cluster) writeCA(ca *clusterCA) error {
	return os.WriteFile(filepath.Join(c.dir, CAFileName), ca.pem, 0o644)
}

// CAFile is the CA certificate of a cluster with TLS ("" without).
func (c *Cluster) CAFile() string { return c.Primary.CAFile() }

func (s *Server) releaseTLS() {
	if s.tls != nil {
		mysql.DeregisterTLSConfig(s.tls.name)
	}
}
