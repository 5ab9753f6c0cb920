-- MySQL dump 10.13  Distrib 8.0.36, for Linux (x86_64)
--
-- Host: localhost    Database: shop
-- ------------------------------------------------------

/*!40101 SET @OLD_CHARACTER_SET_CLIENT=@@CHARACTER_SET_CLIENT */;
/*!40101 SET NAMES utf8mb4 */;
/*!40014 SET @OLD_FOREIGN_KEY_CHECKS=@@FOREIGN_KEY_CHECKS, FOREIGN_KEY_CHECKS=0 */;
# a hash comment; with a semicolon

CREATE DATABASE /*!32312 IF NOT EXISTS*/ `shop` /*!40100 DEFAULT CHARACTER SET utf8mb4 */;
USE `shop`;

DROP TABLE IF EXISTS `customers`;
/*!40101 SET @saved_cs_client     = @@character_set_client */;
CREATE TABLE `customers` (
  `id` int unsigned NOT NULL AUTO_INCREMENT,
  `email` varchar(120) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL COMMENT 'login; unique',
  `name` varchar(60) NOT NULL DEFAULT '',
  `tier` enum('free','gold','it''s') NOT NULL DEFAULT 'free',
  `created_at` datetime NOT NULL DEFAULT CURRENT_TIMESTAMP,
  `updated_at` timestamp NULL DEFAULT NULL ON UPDATE CURRENT_TIMESTAMP,
  `email_domain` varchar(120) GENERATED ALWAYS AS (substring_index(`email`,_utf8mb4'@',-(1))) VIRTUAL,
  `doc` longtext CHARACTER SET utf8mb4 COLLATE utf8mb4_bin DEFAULT NULL CHECK (json_valid(`doc`)),
  PRIMARY KEY (`id`),
  UNIQUE KEY `email` (`email`),
  KEY `created` (`created_at` DESC),
  FULLTEXT KEY `ft_name` (`name`)
) ENGINE=InnoDB AUTO_INCREMENT=3 DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_0900_ai_ci;
/*!40101 SET character_set_client = @saved_cs_client */;

LOCK TABLES `customers` WRITE;
/*!40000 ALTER TABLE `customers` DISABLE KEYS */;
INSERT INTO `customers` VALUES (1,'a@x.org','A;B','free','2025-01-01 00:00:00',NULL,NULL),(2,'b@x.org','it\'s','gold','2025-01-01 00:00:00',NULL,NULL);
/*!40000 ALTER TABLE `customers` ENABLE KEYS */;
UNLOCK TABLES;

CREATE TABLE IF NOT EXISTS shop.products (
  id INTEGER UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  sku CHAR(12) NOT NULL UNIQUE,
  price DECIMAL(10,2) NOT NULL DEFAULT '0.00',
  weight FLOAT(7,3),
  active BOOL NOT NULL DEFAULT TRUE,
  flags SET('a','b') DEFAULT NULL,
  bits BIT(3) DEFAULT b'101',
  uid BINARY(16) DEFAULT (uuid_to_bin(uuid())),
  spot POINT /*!80003 SRID 4326 */,
  CONSTRAINT positive CHECK (price >= 0)
) /*!50100 PARTITION BY KEY (id) */;

CREATE TABLE orders (
  id BIGINT NOT NULL,
  customer_id INT UNSIGNED NOT NULL,
  status ENUM('new', 'paid') NOT NULL,
  total NUMERIC(8,2),
  yr YEAR,
  code SMALLINT,
  PRIMARY KEY USING BTREE (id),
  CONSTRAINT `orders_customer` FOREIGN KEY (`customer_id`) REFERENCES `customers` (`id`) ON DELETE CASCADE ON UPDATE NO ACTION
);

CREATE TABLE `order_items` (
  `order_id` bigint NOT NULL,
  `line` smallint unsigned NOT NULL,
  `product_id` int unsigned NOT NULL REFERENCES products (id),
  PRIMARY KEY (`order_id`,`line`),
  FOREIGN KEY (`order_id`) REFERENCES `orders` (`id`),
  FOREIGN KEY (product_id) REFERENCES products (id)
);
CREATE UNIQUE INDEX code ON orders (code);

DELIMITER ;;
CREATE TRIGGER orders_bi BEFORE INSERT ON orders FOR EACH ROW BEGIN
  SET NEW.total = 0;
  INSERT INTO audit VALUES (NEW.id);
END ;;
DELIMITER ;

CREATE TABLE copy LIKE orders;
CREATE TABLE made AS SELECT * FROM orders;
CREATE TABLE dropped (id INT);
DROP TABLE dropped;
ALTER TABLE copy ADD COLUMN extra INT NOT NULL, ADD CONSTRAINT copy_parent FOREIGN KEY (customer_id) REFERENCES customers (id);
CREATE TABLE altered (id INT);
ALTER TABLE altered MODIFY id BIGINT;
/*!40014 SET FOREIGN_KEY_CHECKS=@OLD_FOREIGN_KEY_CHECKS */;
USE other;
