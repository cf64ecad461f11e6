import ChimeAPI
import ChimeCore
import Testing
@testable import ChimeDaemon

/// What the contract file states of numbers and errors is what the daemon and its store do.
struct ContractLimitsTests {
    @Test func theStoreKeepsWhatTheContractSays() {
        #expect(Store.defaultHistoryLimit == Limits.historyKept)
        #expect(Store.itemizedCancelLimit == Limits.itemizedCancel)
    }

    @Test func chimeRefusesTheRadiiChimedRefuses() {
        #expect(Region.maximumRadius == PlaceText.maximumRadius)
    }

    @Test func presentNowWaitsAsTheContractSays() {
        #expect(Presenter.maxWaitingImmediate == Limits.waitingToPresent)
    }
}
