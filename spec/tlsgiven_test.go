package spec

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A CA named by --tls is the user's own file: read where it is, neither an effect of the
// plan nor a reason to let the plan into its directory. A plan file beside it stays
// outside the plan's roots (the real kinds' files are declared the same way: spec/trust).
func TestTLSFlagFilesAreTheUsers(t *testing.T) {
	mine := t.TempDir()
	ca := filepath.Join(mine, "ca.pem")
	if err := os.WriteFile(ca, selfSigned(t), 0o644); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(mine, "secret.sql")
	if err := os.WriteFile(secret, []byte("SELECT 1"), 0o600); err != nil {
		t.Fatal(err)
	}
	src := `version: 1
name: given
targets:
  db: {dsn: "u:pw@tcp(db1:3306)/x"}
setup:
  - capture: {out: ` + filepath.Join(mine, "out.qcap") + `, duration: 1s}
iteration:
  workload: {transactions: [{name: a, statements: [{sql: "SELECT 1"}]}], duration: 1s}
`
	p := mustLoad(t, src, Options{TLS: map[string]TLSFlag{"db": {Mode: "verify-identity", CA: ca}}})
	tls := p.Targets[0].TLS
	if tls == nil || !tls.Given || tls.CAPath != ca {
		t.Fatalf("target tls %+v; want Given with CA %s", tls, ca)
	}
	var reads []string
	for _, e := range p.Effects() {
		reads = append(reads, e.Path)
	}
	if strings.Contains(strings.Join(reads, " "), ca) {
		t.Errorf("the --tls CA is an effect of the plan: %v", reads)
	}
	if out := filepath.Join(mine, "out.qcap"); !strings.Contains(strings.Join(reads, " "), out) {
		t.Errorf("the plan's capture beside the CA is not an effect: %v", reads)
	}
	if p.Roots().Inside(secret) {
		t.Errorf("the plan's roots hold %s, beside the --tls CA", secret)
	}

	// a --tls file that is no certificate is refused at load, as the plan's own would be
	key := filepath.Join(mine, "key.pem")
	if err := os.WriteFile(key, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: []byte{1}}), 0o600); err != nil {
		t.Fatal(err)
	}
	msg := loadErr(t, src, Options{TLS: map[string]TLSFlag{"db": {Mode: "verify-identity", CA: key}}})
	if !strings.Contains(msg, "private key") {
		t.Errorf("a key given as --tls ca: %s", msg)
	}
}

func selfSigned(t *testing.T) []byte {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test CA"},
		NotBefore: time.Now(), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}
