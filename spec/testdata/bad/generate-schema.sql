-- The schema of generate-schema.yaml: what validate can tell from it.
CREATE DATABASE IF NOT EXISTS gs;
USE gs;

CREATE TABLE `levels` (
  `id` TINYINT NOT NULL PRIMARY KEY,
  `name` VARCHAR(20) NOT NULL
) ENGINE=InnoDB;

CREATE TABLE places (
  id INT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  code CHAR(2) NOT NULL,
  spot POINT NOT NULL,
  kind ENUM('shop', 'depot') NOT NULL,
  opened DATE,
  UNIQUE KEY code (code)
);

CREATE TABLE a (
  id INT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  b_id INT NOT NULL
);
CREATE TABLE b (
  id INT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  a_id INT NOT NULL,
  FOREIGN KEY (a_id) REFERENCES a (id)
);
ALTER TABLE a ADD CONSTRAINT a_b FOREIGN KEY (b_id) REFERENCES b (id);

CREATE TABLE visits (
  place_id INT UNSIGNED NOT NULL,
  nth TINYINT UNSIGNED NOT NULL,
  PRIMARY KEY (place_id, nth),
  FOREIGN KEY (place_id) REFERENCES places (id)
);
