-- A store's rentals in the shape of the sakila sample schema (customer, film, inventory,
-- rental with rental_date and return_date, payment), for the tests of rows in time order,
-- foreign keys that follow their parent row and intervals that must not overlap.
CREATE DATABASE rentals;
USE rentals;

CREATE TABLE language (
  language_id TINYINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  name CHAR(20) NOT NULL
);

CREATE TABLE film (
  film_id SMALLINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  title VARCHAR(128) NOT NULL,
  language_id TINYINT UNSIGNED NOT NULL,
  FOREIGN KEY (language_id) REFERENCES language (language_id)
);

CREATE TABLE customer (
  customer_id SMALLINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  first_name VARCHAR(45) NOT NULL,
  last_name VARCHAR(45) NOT NULL,
  create_date DATETIME NOT NULL
);

CREATE TABLE inventory (
  inventory_id MEDIUMINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  film_id SMALLINT UNSIGNED NOT NULL,
  FOREIGN KEY (film_id) REFERENCES film (film_id)
);

CREATE TABLE rental (
  rental_id INT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  rental_date DATETIME NOT NULL,
  inventory_id MEDIUMINT UNSIGNED NOT NULL,
  customer_id SMALLINT UNSIGNED NOT NULL,
  return_date DATETIME NULL,
  pad CHAR(100) NOT NULL,
  UNIQUE KEY (rental_date, inventory_id, customer_id),
  KEY idx_fk_customer_id (customer_id),
  FOREIGN KEY (inventory_id) REFERENCES inventory (inventory_id),
  FOREIGN KEY (customer_id) REFERENCES customer (customer_id)
);

CREATE TABLE payment (
  payment_id INT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  customer_id SMALLINT UNSIGNED NOT NULL,
  rental_id INT NULL,
  amount DECIMAL(5,2) NOT NULL,
  payment_date DATETIME NOT NULL,
  FOREIGN KEY (rental_id) REFERENCES rental (rental_id),
  FOREIGN KEY (customer_id) REFERENCES customer (customer_id)
);
