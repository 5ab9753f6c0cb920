package sqltext

import "testing"

func TestSkipComments(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"SELECT 1", "SELECT 1"},
		{"  \n\tSELECT 1", "SELECT 1"},
		{"-- note\nSELECT 1", "SELECT 1"},
		{"--\tnote\nSELECT 1", "SELECT 1"},
		{"--\nSELECT 1", "SELECT 1"},
		{"--\r\nSELECT 1", "SELECT 1"},
		{"--", ""},
		{"-- only a comment", ""},
		// "--" not followed by a blank or control character is not a comment.
		{"--1", "--1"},
		{"--x\nSELECT 1", "--x\nSELECT 1"},
		{"# hash\nSELECT 1", "SELECT 1"},
		{"#\nSELECT 1", "SELECT 1"},
		{"/* c */ SELECT 1", "SELECT 1"},
		{"/**/SELECT 1", "SELECT 1"},
		{"/*/ still a comment */SELECT 1", "SELECT 1"},
		{"/* a */ -- b\n# c\n/* d */ UPDATE t SET a=1", "UPDATE t SET a=1"},
		{"/* unterminated SELECT 1", ""},
		// Executable comments run: their content is the statement.
		{"/*!40101 SET NAMES utf8 */", "SET NAMES utf8 */"},
		{"/*! SELECT 1 */", "SELECT 1 */"},
		{"/*M!100101 SELECT 1 */", "SELECT 1 */"},
		{"/* c */ /*!SELECT 1*/", "SELECT 1*/"},
	} {
		if got := SkipComments(c.in); got != c.want {
			t.Errorf("SkipComments(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestLineComment(t *testing.T) {
	for in, want := range map[string]bool{"-- x": true, "--\t": true, "--\n": true, "--\x7f": true, "--": true, "--x": false, "-1": false, "- - x": false, "": false} {
		if got := LineComment(in); got != want {
			t.Errorf("LineComment(%q) = %v, want %v", in, got, want)
		}
	}
}
