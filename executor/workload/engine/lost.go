package engine

// lostCodes are the client's numbers for "no server answered": the connection was refused
// (2002 socket, 2003 TCP), is gone (2006) or broke or timed out mid-statement (2013, 2055).
// Code gives 2003 and 2013 for the driver's network errors and driver.ErrBadConn; sysbench
// and the mysql client print these numbers themselves.
var lostCodes = map[int]bool{2002: true, 2003: true, 2006: true, 2013: true, 2055: true}

// Lost reports whether an error number, as Code gives it, means the server could not be
// reached. A server's own error (a *mysql.MySQLError: 1049 unknown database, 1146, 1045
// access denied, even 1053 shutdown in progress or 1927 connection killed) is an answer,
// so the server is there: a workload failing with it is the workload's problem, never a
// lost server. Unknown errors (0) are not evidence of one either.
func Lost(code int) bool { return lostCodes[code] }
