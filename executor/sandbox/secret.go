package sandbox

import (
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// PasswordFile is the name, inside a cluster's directory, of the file holding its root password.
const PasswordFile = "password"

// newPassword is a random password of letters and digits (about 143 bits): nothing in it needs
// quoting in SQL, a DSN, an option file or a shell.
func newPassword() (string, error) {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("generate a password: %w", err)
	}
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b), nil
}

// writePrivate writes a file only quadrant's own user can read, whatever the umask. O_EXCL keeps
// it from following a planted file or symlink.
func writePrivate(path, content string) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(content); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// ReadPassword reads the root password of the cluster whose directory is dir.
func ReadPassword(dir string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, PasswordFile))
	if err != nil {
		return "", fmt.Errorf("read the sandbox's password: %w", err)
	}
	return strings.TrimSpace(string(b)), nil
}

// clientCnf is an option file for the mysql/mariadb client, so scripts reach the server without
// the password on a command line (where ps shows it).
func clientCnf(s *Server) string {
	cnf := fmt.Sprintf("# Written by quadrant: mariadb --defaults-extra-file=THIS reaches %s as root.\n[client]\nuser = root\npassword = %s\nhost = 127.0.0.1\nport = %d\nprotocol = TCP\n",
		s.name, s.password, s.port)
	if s.tls != nil {
		// The server refuses plaintext; the client checks the certificate as quadrant does.
		cnf += "ssl-ca = " + s.CAFile() + "\n"
		if s.bin.Flavor == FlavorMySQL {
			cnf += "ssl-mode = VERIFY_IDENTITY\n"
		} else {
			cnf += "ssl-verify-server-cert\n"
		}
	}
	return cnf
}
