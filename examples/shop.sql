-- A small shop for the generate: step (examples/generate-shop.yaml, docs/generate.md):
-- auto-increment keys, a unique email, an ENUM, two foreign keys and a composite primary key.
CREATE DATABASE IF NOT EXISTS shop;
USE shop;

CREATE TABLE customers (
  id INT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  email VARCHAR(120) NOT NULL,
  name VARCHAR(60) NOT NULL,
  created_at DATETIME NOT NULL,
  UNIQUE KEY email (email)
) ENGINE = InnoDB;

CREATE TABLE products (
  id INT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  sku CHAR(12) NOT NULL,
  title VARCHAR(100) NOT NULL,
  price DECIMAL(10,2) NOT NULL,
  UNIQUE KEY sku (sku)
) ENGINE = InnoDB;

CREATE TABLE orders (
  id INT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  customer_id INT UNSIGNED NOT NULL,
  status ENUM('new', 'paid', 'shipped') NOT NULL,
  placed_at DATETIME NOT NULL,
  note VARCHAR(200) NULL,
  FOREIGN KEY (customer_id) REFERENCES customers (id)
) ENGINE = InnoDB;

CREATE TABLE order_items (
  order_id INT UNSIGNED NOT NULL,
  line SMALLINT UNSIGNED NOT NULL,
  product_id INT UNSIGNED NOT NULL,
  quantity TINYINT UNSIGNED NOT NULL,
  PRIMARY KEY (order_id, line),
  FOREIGN KEY (order_id) REFERENCES orders (id),
  FOREIGN KEY (product_id) REFERENCES products (id)
) ENGINE = InnoDB;
