-- A store's schema in the style of a well-known sample database: SMALLINT and TINYINT
-- auto-increment keys, and columns in MySQL's versioned comments.
CREATE DATABASE IF NOT EXISTS store;
USE store;

CREATE TABLE category (
  category_id TINYINT UNSIGNED NOT NULL AUTO_INCREMENT,
  name VARCHAR(25) NOT NULL,
  PRIMARY KEY (category_id)
);

CREATE TABLE actor (
  actor_id SMALLINT UNSIGNED NOT NULL AUTO_INCREMENT,
  first_name VARCHAR(45) NOT NULL,
  last_name VARCHAR(45) NOT NULL,
  PRIMARY KEY (actor_id)
);

CREATE TABLE customer (
  customer_id SMALLINT UNSIGNED NOT NULL AUTO_INCREMENT,
  first_name VARCHAR(45) NOT NULL,
  PRIMARY KEY (customer_id)
);

CREATE TABLE payment (
  payment_id SMALLINT UNSIGNED NOT NULL AUTO_INCREMENT,
  customer_id SMALLINT UNSIGNED NOT NULL,
  amount DECIMAL(5,2) NOT NULL,
  PRIMARY KEY (payment_id),
  CONSTRAINT fk_payment_customer FOREIGN KEY (customer_id) REFERENCES customer (customer_id)
);

CREATE TABLE film_category (
  film_id SMALLINT UNSIGNED NOT NULL,
  category_id TINYINT UNSIGNED NOT NULL,
  PRIMARY KEY (film_id, category_id),
  CONSTRAINT fk_film_category_category FOREIGN KEY (category_id) REFERENCES category (category_id)
);

-- MariaDB skips MySQL 5.7+ versioned comments (/*!50700 to /*!99999): on a MariaDB target
-- address has no location column, so its GEOMETRY is no error, and its key is still checked.
CREATE TABLE address (
  address_id SMALLINT UNSIGNED NOT NULL AUTO_INCREMENT,
  address VARCHAR(50) NOT NULL,
  /*!50705 location GEOMETRY NOT NULL,*/
  PRIMARY KEY (address_id)
  /*!50705 , SPATIAL KEY idx_location (location)*/
) /*!40101 ENGINE=InnoDB */ /*!80016 DEFAULT ENCRYPTION='N' */;
