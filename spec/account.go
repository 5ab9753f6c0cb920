package spec

// Privilege is one privilege a plan line needs of the account it runs as: any one of
// Names, on DB.Table (DB "": global, *.*; Table "": the whole schema). It has the fields of
// executor/target's Privilege, against which the account's grants are read.
type Privilege struct {
	Names     []string
	DB, Table string
}

// AccountNeed is what one plan line needs of the account it runs as on one target (a
// StepKind's Privileges): it is met when the account holds every privilege of one of Any.
type AccountNeed struct {
	Pos  Pos    // the plan line that asks it
	What string // the plan key: set_global, capture, generate orders...
	Why  string // what the server is asked to do, for the message: "SET GLOBAL"
	Any  [][]Privilege
}

// AccountServer is what the privileges a step needs depend on, of the server it runs on,
// as the pre-flight found it (executor/preflight): the names of some privileges differ
// between flavors and versions, which a step kind need not know.
type AccountServer struct {
	// Schema is the database the target's DSN names ("" none): where a step's tables go
	// unless the step says.
	Schema string
	// SetGlobal is what SET GLOBAL of most variables takes there; ReplicaStatus what SHOW
	// REPLICA STATUS takes.
	SetGlobal, ReplicaStatus Privilege
	// ChecksReferences says the server checks REFERENCES on a foreign key's parent (MySQL;
	// MariaDB does not).
	ChecksReferences bool
}
