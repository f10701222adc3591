package dev.idempotency.codec;

import org.junit.jupiter.api.Test;

import tools.jackson.core.util.BufferRecycler;

import static org.assertj.core.api.Assertions.assertThat;

class StripedRecyclerPoolTests {

	private final StripedRecyclerPool pool = new StripedRecyclerPool();

	@Test
	void threadGetsBackTheBuffersItReleased() {
		BufferRecycler first = this.pool.acquireAndLinkPooled();
		assertThat(first.isLinkedWithPool()).isTrue();
		first.releaseToPool();
		assertThat(first.isLinkedWithPool()).isFalse();
		assertThat(this.pool.acquireAndLinkPooled()).isSameAs(first);
	}

	@Test
	void buffersInUseAreNeverHandedOutTwice() {
		BufferRecycler first = this.pool.acquireAndLinkPooled();
		BufferRecycler second = this.pool.acquireAndLinkPooled();
		assertThat(second).isNotSameAs(first);
		first.releaseToPool();
		second.releaseToPool();
		assertThat(this.pool.acquireAndLinkPooled()).isSameAs(first);
		assertThat(this.pool.acquireAndLinkPooled()).isNotSameAs(first).isNotSameAs(second);
	}

}
