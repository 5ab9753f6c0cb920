package genplan

import (
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/parser"
)

// FollowedParentColumn is COLUMN when src is exactly parent.COLUMN: the only expression a
// foreign key column takes, so that its value is a parent row's key by construction (the
// parent's own foreign key to the same table) and the foreign key holds without a check.
func FollowedParentColumn(src string) (string, bool) {
	tree, err := parser.Parse(src)
	if err != nil {
		return "", false
	}
	m, ok := tree.Node.(*ast.MemberNode)
	if !ok || m.Optional || m.Method {
		return "", false
	}
	id, ok := m.Node.(*ast.IdentifierNode)
	if !ok || id.Value != "parent" {
		return "", false
	}
	name, ok := m.Property.(*ast.StringNode)
	if !ok {
		return "", false
	}
	return name.Value, true
}
