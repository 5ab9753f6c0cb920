// Package authretry connects with go-sql-driver/mysql, logging in again when the driver
// misreads MariaDB's ed25519 challenge.
//
// go-sql-driver/mysql v1.10 strips one trailing zero byte from the data of an auth switch
// request (mysql_native_password's scramble ends in one). MariaDB's ed25519 plugin sends a
// 32-byte random nonce with no terminator, so when the nonce's last byte happens to be
// zero (one login in 256) the driver keeps 31 bytes and fails with "malformed packet"
// before it sent any credential. A new login draws a new nonce: trying again is safe (no
// statement ran) and fails twice in a row one time in 65536. Driver v1.11 no longer strips
// the byte; until quadrant moves to it, every connector of a target goes through here.
package authretry

import (
	"context"
	"database/sql/driver"
	"errors"

	"github.com/go-sql-driver/mysql"
)

// tries bounds the logins of one Connect: a server that really sends malformed packets
// fails as before, after as many round trips.
const tries = 3

// NewConnector is mysql.NewConnector whose Connect logs in again, up to tries times in all,
// when the driver fails with mysql.ErrMalformPkt.
func NewConnector(cfg *mysql.Config) (driver.Connector, error) {
	c, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, err
	}
	return connector{c}, nil
}

type connector struct{ driver.Connector }

// Connect implements driver.Connector.
func (c connector) Connect(ctx context.Context) (driver.Conn, error) {
	for i := 1; ; i++ {
		conn, err := c.Connector.Connect(ctx)
		if err == nil || i == tries || !errors.Is(err, mysql.ErrMalformPkt) || ctx.Err() != nil {
			return conn, err
		}
	}
}
