-- Run on a MariaDB 10.11 sandbox, then dumped into mariadb-dump.sql (spec/ddl TestParseMariaDBDump).
CREATE DATABASE k; USE k;
CREATE TABLE people (id BIGINT NOT NULL PRIMARY KEY, handle VARCHAR(20) NOT NULL UNIQUE, born DATE,
  upper_handle VARCHAR(20) AS (UPPER(handle)) VIRTUAL, score DECIMAL(5,2) DEFAULT 0.00 COMMENT 'it''s a score', flags SET('a','b','c'), active TINYINT(1) NOT NULL DEFAULT 1,
  seen TIMESTAMP NULL DEFAULT NULL ON UPDATE CURRENT_TIMESTAMP, at TIME, yr YEAR, doc JSON, raw VARBINARY(16), bits BIT(3) DEFAULT b'101', amount DOUBLE,
  token UUID, addr INET6, boss BIGINT, CONSTRAINT positive CHECK (score >= 0), KEY (born), FULLTEXT KEY ft (handle),
  FOREIGN KEY (boss) REFERENCES people (id) ON DELETE SET NULL);
CREATE TABLE passports (person_id BIGINT NOT NULL PRIMARY KEY, number CHAR(9) NOT NULL, FOREIGN KEY (person_id) REFERENCES people (id));
CREATE TABLE teams (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, name VARCHAR(30) NOT NULL) ENGINE=InnoDB DEFAULT CHARSET=latin1 COMMENT='teams; all';
CREATE TABLE memberships (person_id BIGINT NOT NULL, team_id INT NOT NULL, PRIMARY KEY (person_id, team_id),
  CONSTRAINT m_person FOREIGN KEY (person_id) REFERENCES people (id), CONSTRAINT m_team FOREIGN KEY (team_id) REFERENCES teams (id) ON DELETE CASCADE);
CREATE TABLE regions (code CHAR(4) NOT NULL, region TINYINT NOT NULL, PRIMARY KEY (code, region));
CREATE TABLE stores (id INT NOT NULL PRIMARY KEY, code CHAR(4) NOT NULL, region TINYINT NOT NULL, opened DATETIME(3) DEFAULT CURRENT_TIMESTAMP(3),
  FOREIGN KEY (code, region) REFERENCES regions (code, region));
CREATE TABLE parts (id INT NOT NULL PRIMARY KEY) PARTITION BY HASH (id) PARTITIONS 2;
CREATE TABLE `we``ird` (`id` INT UNSIGNED ZEROFILL NOT NULL AUTO_INCREMENT, `select` VARCHAR(5) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin, PRIMARY KEY (`id`)) ENGINE=InnoDB;
CREATE TRIGGER people_bi BEFORE INSERT ON people FOR EACH ROW SET NEW.handle = LOWER(NEW.handle);
CREATE VIEW v AS SELECT id FROM people;
INSERT INTO teams (name) VALUES ('a;b'), ('it''s');
