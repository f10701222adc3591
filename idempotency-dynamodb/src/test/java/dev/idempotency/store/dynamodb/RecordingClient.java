package dev.idempotency.store.dynamodb;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.DeleteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.DeleteItemResponse;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.GetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.PutItemResponse;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemResponse;

/**
 * A client that sends every item request to a real server, counting them, and lets a test
 * change what a put or a read answers.
 */
class RecordingClient implements DynamoDbClient {

	final AtomicInteger puts = new AtomicInteger();

	final AtomicInteger gets = new AtomicInteger();

	final AtomicInteger updates = new AtomicInteger();

	private final DynamoDbClient server;

	private volatile Function<PutItemRequest, PutItemResponse> put;

	private volatile Function<GetItemRequest, GetItemResponse> get;

	private volatile Function<UpdateItemRequest, UpdateItemResponse> update;

	RecordingClient(DynamoDbClient server) {
		this.server = server;
		this.put = server::putItem;
		this.get = server::getItem;
		this.update = server::updateItem;
	}

	DynamoDbClient server() {
		return this.server;
	}

	void onPut(Function<PutItemRequest, PutItemResponse> put) {
		this.put = put;
	}

	void onGet(Function<GetItemRequest, GetItemResponse> get) {
		this.get = get;
	}

	void onUpdate(Function<UpdateItemRequest, UpdateItemResponse> update) {
		this.update = update;
	}

	void resetCounts() {
		this.puts.set(0);
		this.gets.set(0);
		this.updates.set(0);
	}

	@Override
	public PutItemResponse putItem(PutItemRequest request) {
		this.puts.incrementAndGet();
		return this.put.apply(request);
	}

	@Override
	public GetItemResponse getItem(GetItemRequest request) {
		this.gets.incrementAndGet();
		return this.get.apply(request);
	}

	@Override
	public UpdateItemResponse updateItem(UpdateItemRequest request) {
		this.updates.incrementAndGet();
		return this.update.apply(request);
	}

	@Override
	public DeleteItemResponse deleteItem(DeleteItemRequest request) {
		return this.server.deleteItem(request);
	}

	@Override
	public String serviceName() {
		return SERVICE_NAME;
	}

	@Override
	public void close() {
	}

}
