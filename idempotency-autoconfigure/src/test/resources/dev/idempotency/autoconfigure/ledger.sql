create table ledger (id identity primary key, event_id varchar(64) not null, amount int not null);
