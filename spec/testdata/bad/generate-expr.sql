CREATE DATABASE ge;
USE ge;
CREATE TABLE employees (emp_no INT NOT NULL PRIMARY KEY, hire_date DATE NOT NULL, name VARCHAR(20) NOT NULL);
CREATE TABLE salaries (emp_no INT NOT NULL, salary INT NOT NULL, from_date DATE NOT NULL, to_date DATE NOT NULL,
  a INT NOT NULL, b INT NOT NULL, PRIMARY KEY (emp_no, from_date), FOREIGN KEY (emp_no) REFERENCES employees (emp_no));
CREATE TABLE salaries2 (salary INT NOT NULL);
