CREATE DATABASE pp;
USE pp;
CREATE TABLE employees (emp_no INT NOT NULL PRIMARY KEY, hire_date DATE NOT NULL);
CREATE TABLE departments (dept_no CHAR(4) NOT NULL PRIMARY KEY);
CREATE TABLE salaries (emp_no INT NOT NULL, from_date DATE NOT NULL, PRIMARY KEY (emp_no, from_date),
  FOREIGN KEY (emp_no) REFERENCES employees (emp_no));
CREATE TABLE dept_emp (emp_no INT NOT NULL, dept_no CHAR(4) NOT NULL, PRIMARY KEY (emp_no, dept_no),
  FOREIGN KEY (emp_no) REFERENCES employees (emp_no), FOREIGN KEY (dept_no) REFERENCES departments (dept_no));
CREATE TABLE badges (emp_no INT NOT NULL PRIMARY KEY, FOREIGN KEY (emp_no) REFERENCES employees (emp_no));
CREATE TABLE notes (id INT NOT NULL PRIMARY KEY, n TINYINT NOT NULL);
CREATE TABLE visits (emp_no INT NOT NULL, nth TINYINT UNSIGNED NOT NULL, PRIMARY KEY (emp_no, nth),
  FOREIGN KEY (emp_no) REFERENCES employees (emp_no));
CREATE TABLE dept_manager (emp_no INT NOT NULL, dept_no CHAR(4) NOT NULL, PRIMARY KEY (emp_no, dept_no),
  FOREIGN KEY (emp_no) REFERENCES employees (emp_no), FOREIGN KEY (dept_no) REFERENCES departments (dept_no));
CREATE TABLE leaves (dept_no CHAR(4) NOT NULL, n INT NOT NULL, PRIMARY KEY (dept_no, n), FOREIGN KEY (dept_no) REFERENCES departments (dept_no));
CREATE TABLE dept_emp2 (emp_no INT NOT NULL, dept_no CHAR(4) NOT NULL, PRIMARY KEY (emp_no, dept_no),
  FOREIGN KEY (emp_no) REFERENCES employees (emp_no), FOREIGN KEY (dept_no) REFERENCES departments (dept_no));
